"""`make generate`: every generated file of the repository from its source, so that adding or changing an action,
a setting or a module is one command: the docs' tables (codegen.docs), both clients' generated code from the
OpenAPI document the app serves (the Python client's lineup_client/actions.py; the TypeScript client's openapi.json,
src/actions.ts, src/schema.ts by openapi-typescript, its version and dist/ by tsc, which need Node 18+ and npm).
The files to follow need a running stack: `make generate` runs their own command after this one.

`python -m codegen --check` (part of `make lint`) writes nothing and fails while a generated file differs from
what this would write; the TypeScript client's types and build are checked without Node, against the digests of
its sources and outputs recorded in clients/typescript/generated.sha256 when they were built."""

from __future__ import annotations

import sys

from codegen import docs, python, typescript
from codegen.document import live_document, version


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = [section.name for section, body in docs.GENERATED if section.stale(body())]
    if not check:
        for section, body in docs.GENERATED:
            section.write(body())
    document = live_document()
    if python.TARGET.read_text() != python.render(document):
        stale.append(str(python.TARGET.relative_to(docs.ROOT)))
        if not check:
            python.TARGET.write_text(python.render(document))
    stale += typescript.stale_sources(document)
    if not check:
        typescript.write_sources(document)
        typescript.installed()
        typescript.generate_types()
        typescript.build()
        typescript.record_digests()
    stale += typescript.stale_build()
    if check and stale:
        print(f"generated files out of date (run `make generate`): {', '.join(stale)}", file=sys.stderr)
        return 1
    if not check:
        print(f"generated every file for Lineup {version(document)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
