"""`data` of the auth domain: the session /authenticate opens."""

from __future__ import annotations

from models.answers.base import Shape


class Session(Shape):
    login_log_otp: str


SESSION = Session(login_log_otp="482913")
