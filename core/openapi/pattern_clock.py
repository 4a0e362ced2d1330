"""One deadline for every regular expression of one schema check, in wall-clock seconds, and
Ctrl+C that stops a search at once.

* **Shared**: a response of 10,000 strings cannot take 10,000 timeouts. `clock_running(seconds)`
  sets the check's clock in a context variable (jsonschema's validators are compiled once and
  shared, so the keywords read it from there). When it runs out, the search that was running is
  recorded (`clock.overrun`) and every later one fails at once, so the check ends.
* **Wall clock**: `regex`'s `timeout=` counts CPU time — on a loaded machine a 1 s timeout took
  4 s. In the main thread an interval timer (SIGALRM) ends the search at the wall-clock deadline;
  `timeout=` stays as the backstop (other threads, or a timer someone else is using).
* **Interruptible**: a run's SIGINT / SIGTERM handler only asks the run to stop (it raises
  nothing), which a search in progress would not notice; `regex` calls Python's signal handlers as
  it searches, so during a check a handler that raises stops the search at once; the signal then
  goes on to whoever handled it before (`interruptible`).
"""

from __future__ import annotations

import contextvars
import signal
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, cast

from jsonschema.exceptions import ValidationError

from scenario_core.openapi.schema_patterns import PatternError, compile_pattern, shown
from scenario_core.support.records import dataclass

if TYPE_CHECKING:
    from types import FrameType

    from scenario_core.openapi.schema_patterns import CompiledPattern
    from scenario_core.support.json_types import JsonValue

    class SchemaValidator(Protocol):
        """What we use of a compiled jsonschema validator (the library ships no types): its
        schema, its errors, and what a keyword of ours calls back."""

        @property
        def schema(self) -> JsonValue: ...

        def iter_errors(self, instance: object) -> Iterator[ValidationError]: ...

        def is_type(self, instance: object, type: str) -> bool: ...

        def descend(
            self,
            instance: object,
            schema: JsonValue,
            path: str | int | None = None,
            schema_path: str | int | None = None,
        ) -> Iterator[ValidationError]: ...

    # A signal's handler as signal.getsignal gives it: a function, SIG_DFL or SIG_IGN, or None
    # (installed outside Python).
    _Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

# A check with no deadline of its own (validate_value, the editor) gets this long for its searches.
DEFAULT_SECONDS = 2.0


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived during a check."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Expired(Exception):
    """The wall-clock deadline passed during a check (the interval timer fired)."""


@dataclass
class Overrun:
    pattern: str | None  # None: the deadline passed between searches
    length: int  # of the text searched


class PatternClock:
    """The deadline every search of one check shares. The signal handlers and the timer are set
    at the first search (`arm`), so a check without patterns pays nothing for them."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.overrun: Overrun | None = None
        self._previous: dict[int, _Handler] | None = None  # handlers replaced by arm(); None: not armed
        self._timer = False

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def search(self, compiled: CompiledPattern, text: str) -> bool:
        """Whether the pattern is found in the text; False (and `overrun` set) past the deadline."""
        if self.overrun is not None:
            return False
        if self._previous is None:
            self.arm()
        remaining = self.remaining()
        try:
            if remaining <= 0:
                raise TimeoutError
            return compiled.search(text, timeout=remaining) is not None
        except (TimeoutError, Expired):
            self.overrun = Overrun(compiled.pattern, len(text))
            if self._timer:  # regex's own timeout may come first: the timer must not fire later, in
                signal.setitimer(_TIMER, 0)  # jsonschema's code, and lose the value's path
            return False

    def expire(self) -> None:
        """The deadline passed outside a search (the timer fired in jsonschema's own code)."""
        if self.overrun is None:
            self.overrun = Overrun(None, 0)

    def message(self) -> str:
        assert self.overrun is not None
        if self.overrun.pattern is None:
            return f"the schema's patterns took longer than {self.seconds:g} s all together and were stopped"
        return (
            f"pattern {shown(self.overrun.pattern)} took longer than {self.seconds:g} s on a "
            f"{self.overrun.length:,}-character value and was stopped (nested repetition such as "
            "(a+)+ backtracks without end)"
        )

    # ---- signals (main thread only: the only one Python runs handlers in; elsewhere regex's
    # timeout= alone bounds a search)

    def arm(self) -> None:
        self._previous = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            if handler in (signal.SIG_IGN, None):
                continue  # ignored stays ignored; None: installed outside Python, leave it
            self._previous[signum] = handler
            signal.signal(signum, _interrupt)
        alarm = _ALARM
        if alarm is not None and signal.getsignal(alarm) == signal.SIG_DFL and signal.getitimer(_TIMER) == (0, 0):
            self._previous[alarm] = signal.SIG_DFL  # nobody else uses the timer: ours
            signal.signal(alarm, _interrupt)
            signal.setitimer(_TIMER, max(self.remaining(), 0.001))
            self._timer = True

    def disarm(self) -> None:
        if self._timer:
            signal.setitimer(_TIMER, 0)  # disarmed before SIGALRM is default again (it would kill us)
            self._timer = False
        for signum, handler in (self._previous or {}).items():
            signal.signal(signum, handler)
        self._previous = None

    def hand_on(self, signum: int) -> None:
        """After Interrupted: the signal goes on to whoever handled it before (a run's handler
        stops the run), Python's default raises KeyboardInterrupt, SIG_DFL ends the process."""
        handler = (self._previous or {}).get(signum)
        self.disarm()
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            signal.raise_signal(signum)


def _interrupt(signum: int, frame: object) -> None:
    if signum == _ALARM:
        clock = _CLOCK.get()
        if clock is not None and clock.overrun is not None:
            return  # the search already overran and said where: a late timer adds nothing
        raise Expired
    raise Interrupted(signum)


_ALARM = getattr(signal, "SIGALRM", None)
_TIMER = getattr(signal, "ITIMER_REAL", 0)
_CLOCK: contextvars.ContextVar[PatternClock | None] = contextvars.ContextVar("schema_pattern_clock", default=None)


def current_clock() -> PatternClock:
    clock = _CLOCK.get()
    if clock is None:  # a validator used outside a check: a deadline of its own for this search
        clock = PatternClock(DEFAULT_SECONDS)
    return clock


@contextmanager
def clock_running(seconds: float) -> Iterator[PatternClock]:
    """Every search inside shares one deadline, `seconds` from now; SIGINT / SIGTERM raise
    Interrupted (after reaching their usual handler); a deadline that passes between searches
    is `clock.overrun` too."""
    clock = PatternClock(seconds)
    token = _CLOCK.set(clock)
    try:
        yield clock
    except Expired:
        clock.expire()
    except Interrupted as stop:
        clock.hand_on(stop.signum)
        raise
    finally:
        clock.disarm()
        _CLOCK.reset(token)


def search(pattern: str, text: str) -> bool:
    """A search under the current check's deadline; PatternError for a pattern that cannot be used."""
    clock = current_clock()
    try:
        return clock.search(compile_pattern(pattern), text)
    except Expired:  # the timer's signal ran its handler just outside the regex call: still this search's
        if clock.overrun is None:
            clock.overrun = Overrun(pattern, len(text))
        return False


# ----------------------------------------------------------------- jsonschema's keywords, bounded


# jsonschema calls a keyword with the validator, the keyword's value in the schema, the instance
# and the schema; our conversion has checked the keyword's shape (schema_compile), and jsonschema's
# own type check says what the instance is (casts: nothing is checked twice per value).


def pattern_keyword(
    validator: SchemaValidator, pattern: str, instance: object, schema: JsonValue
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        found = search(pattern, cast(str, instance))
    except PatternError as error:  # schema_compile refuses these first; never a crash regardless
        yield ValidationError(str(error))
        return
    if not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def pattern_properties_keyword(
    validator: SchemaValidator, patterns: dict[str, JsonValue], instance: object, schema: JsonValue
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in cast("dict[str, object]", instance).items():
            try:
                found = search(pattern, key)
            except PatternError as error:
                yield ValidationError(str(error))
                return
            if found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)
