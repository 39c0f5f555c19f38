"""`python -m sandbox`: the HTTP stand-ins and the SMTP sink in one process until SIGINT/SIGTERM."""

import logging
import signal
from types import FrameType

import uvicorn

from sandbox.app import create_app
from sandbox.config import SandboxConfig
from sandbox.mail_sink import SMTP_HOST, start_smtp_sink
from sandbox.store import Store

log = logging.getLogger("sandbox")


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # uvicorn shuts down gracefully, then re-raises the signal it caught; turning SIGTERM into SystemExit
    # at that point lets the `finally` below stop the SMTP sink instead of the process dying mid-way.
    raise SystemExit(0)


def main() -> None:
    """Serve HTTP on host:port and SMTP on 127.0.0.1:smtp_port, sharing one store."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # aiosmtpd logs every connection and address at INFO; our handler logs one line per stored message.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    config = SandboxConfig()
    store = Store(config.db_path)
    app = create_app(config, store=store)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    sink = start_smtp_sink(config, store)
    log.info("SMTP sink on %s:%d, state in %s", SMTP_HOST, config.smtp_port, config.db_path)
    try:
        uvicorn.Server(uvicorn.Config(app, host=config.host, port=config.port)).run()
    except KeyboardInterrupt:
        # SIGINT re-raised by uvicorn after its graceful shutdown: a normal way to stop.
        pass
    finally:
        sink.stop()
        store.close()
        log.info("sandbox stopped")


if __name__ == "__main__":
    main()
