"""`make clients`: regenerates both clients' generated files from the OpenAPI document the app serves, from the
repository's root: the Python client's lineup_client/actions.py, and the TypeScript client's openapi.json,
src/actions.ts, src/schema.ts (openapi-typescript), its version and dist/ (tsc). tests/clients/test_generated.py
fails while what is committed differs from what this writes."""

from __future__ import annotations

import sys

from codegen import python, typescript
from codegen.document import live_document, version


def main() -> None:
    document = live_document()
    python.TARGET.write_text(python.render(document))
    typescript.write_sources(document)
    typescript.installed()
    typescript.generate_types()
    typescript.build()
    print(f"clients generated for Lineup {version(document)}", file=sys.stderr)


if __name__ == "__main__":
    main()
