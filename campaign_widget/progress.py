"""One way to report progress: a caller's callback, or a tqdm bar (``tqdm.auto`` draws a widget
in a notebook kernel and a text bar on a terminal)."""

from __future__ import annotations

from typing import Any

from .errors import WrongTypeError, short_repr

ProgressArg = "bool | None | Callable[..., Any]"


class Progress:
    """``progress``: False (silent), True (a bar), None (``default``), or a callable, called as
    ``callback(done, total)`` or, with ``with_what=True``, ``callback(done, total, what)``.

    Call the reporter with how much is done; ``close()`` ends the bar (it is also ended when
    ``done`` reaches ``total``)."""

    def __init__(
        self, progress: Any, *, total: int, what: str, unit: str = "it", default: bool = False, with_what: bool = False
    ) -> None:
        if progress is None:
            progress = default
        if not (isinstance(progress, bool) or callable(progress)):
            raise WrongTypeError(f"progress={short_repr(progress)} must be True, False, None or a callable")
        self.total, self.what, self._with_what = int(total), what, with_what
        self._callback = progress if callable(progress) and not isinstance(progress, bool) else None
        self._bar = None
        if progress is True:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, desc=what, unit=unit, leave=True)

    @property
    def active(self) -> bool:
        return self._callback is not None or self._bar is not None

    def __call__(self, done: int, what: str | None = None) -> None:
        if self._callback is not None:
            if self._with_what:
                self._callback(done, self.total, what or self.what)
            else:
                self._callback(done, self.total)
        elif self._bar is not None:
            if what is not None and what != self._bar.desc:
                self._bar.set_description(what, refresh=False)
            self._bar.update(done - self._bar.n)
            if done >= self.total:
                self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
