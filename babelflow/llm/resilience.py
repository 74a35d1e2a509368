"""Retries with exponential backoff and jitter (honouring Retry-After, with a floor when a throttled
reply has none), and a shared per-provider limit. What each provider's errors mean: ``failures``.

The limit is process-wide and keyed by provider (and endpoint): every translator and reviewer of
that provider in this process, in any thread, shares ``concurrency`` request slots, an optional
requests-per-minute token bucket, and the cool-down a 429 with ``Retry-After`` imposes. Across
processes or machines, a Prefect global concurrency limit can replace it: wrap the call in
``prefect.concurrency.sync.concurrency("llm-<provider>", occupy=1)`` (or ``rate_limit``) and set
``concurrency`` high here.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TypeVar

from babelflow.errors import BabelflowError
from babelflow.llm.config import ProviderConfig, redact

log = logging.getLogger("babelflow.providers")
T = TypeVar("T")
MAX_WAIT = 300.0


class TransientError(Exception):
    """A failure worth retrying the same request for (429, 529, 5xx, timeout, garbled body).

    ``throttled``: the provider asked us to slow down (429, 503, 529); without a Retry-After the
    wait is at least ``throttle_floor`` and the whole provider cools down, not just this call."""

    def __init__(
        self, reason: str, retry_after: float | None = None, *, throttled: bool = False, rate_limited: bool = False
    ):
        self.reason = redact(reason)
        self.retry_after = retry_after
        self.throttled = throttled or rate_limited
        self.rate_limited = rate_limited  # a 429: a per-minute quota, not an overloaded server
        super().__init__(self.reason)


class BatchRejected(Exception):
    """The provider will not answer this request as it is (a content refusal, a request too
    large): the caller retries its segments in smaller batches, then alone, and a segment still
    rejected is that segment's recorded failure; the run goes on."""

    def __init__(self, reason: str):
        self.reason = redact(reason)
        super().__init__(self.reason)


class ProviderError(BabelflowError):
    """The provider refused or stayed unavailable: the run stops; the translation memory keeps
    every batch finished so far, so a rerun pays only for the rest."""

    def __init__(self, message: str, *, field: str | None = None, fix: str | None = None):
        super().__init__(redact(message), field=field, fix=fix and redact(fix))


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date); None if absent."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        if "retry-after" in lowered:
            raw = lowered["retry-after"].strip()
            try:
                return max(0.0, float(raw))
            except ValueError:
                when = email.utils.parsedate_to_datetime(raw)
                return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None
    return None


class ProviderLimiter:
    """``concurrency`` slots, an optional token bucket (rpm), a shared 429 cool-down, and the per-minute
    window a 429 without Retry-After teaches: the requests the provider accepted from us in the minute
    before it refused one are taken as its limit, and later requests keep to that many a minute (the
    provider's own sliding window, mirrored), instead of each waiting out a fixed floor and meeting the
    next 429."""

    WINDOW = 60.0

    def __init__(self, concurrency: int, rpm: int):
        self.slots = threading.BoundedSemaphore(concurrency)
        self.rpm = rpm
        self.burst = max(1.0, rpm / 60)  # at most one second's worth of requests at once
        self._tokens = self.burst
        self._refilled = time.monotonic()
        self._blocked_until = 0.0
        self._lock = threading.Lock()
        self._starts: deque[float] = deque()  # when each request of the last minute went out
        self.learned_limit = 0  # requests a minute the provider's 429s taught (0: none yet)

    def cool_down(self, seconds: float) -> None:
        with self._lock:
            self._blocked_until = max(self._blocked_until, time.monotonic() + seconds)

    def refused(self, started: float) -> bool:
        """A request that went out at ``started`` met a 429 without Retry-After. The provider did not count
        it; the ones it accepted in the last minute are its limit. False if none were ours (another client
        used the quota: nothing to learn, the caller waits the floor)."""
        with self._lock:
            if started in self._starts:
                self._starts.remove(started)
            self._forget(time.monotonic())
            accepted = len(self._starts)
            if accepted:
                self.learned_limit = min(self.learned_limit or accepted, accepted)
            return accepted > 0

    @property
    def _span(self) -> float:
        """How long a request counts: the provider's window runs from when it arrived, a little after it left
        (a sixtieth of the window, and at least a quarter second: a loaded machine or network delays arrival)."""
        return self.WINDOW + max(self.WINDOW / 60, 0.25)

    def _forget(self, now: float) -> None:
        while self._starts and now - self._starts[0] >= self._span:
            self._starts.popleft()

    def _wait_turn(self) -> float:
        """Wait for this request's turn; when it went out (its place in the window)."""
        while True:
            with self._lock:
                now = time.monotonic()
                wait = self._blocked_until - now
                if wait <= 0 and self.learned_limit:
                    self._forget(now)
                    if len(self._starts) >= self.learned_limit:
                        wait = self._starts[0] + self._span - now
                if wait <= 0 and self.rpm:
                    self._tokens = min(self.burst, self._tokens + (now - self._refilled) * self.rpm / 60)
                    self._refilled = now
                    if self._tokens >= 1:
                        self._tokens -= 1
                        return self._went_out(now)
                    wait = (1 - self._tokens) * 60 / self.rpm
                elif wait <= 0:
                    return self._went_out(now)
            time.sleep(min(wait, 1.0))

    def _went_out(self, now: float) -> float:
        self._forget(now)
        self._starts.append(now)
        return now

    @contextmanager
    def slot(self) -> Iterator[float]:
        """A request slot; yields when the request went out (for ``refused``)."""
        with self.slots:
            yield self._wait_turn()


_limiters: dict[str, ProviderLimiter] = {}
_limiters_lock = threading.Lock()


def limiter_for(config: ProviderConfig) -> ProviderLimiter:
    """The process-wide limiter of this provider; the first configuration sets its size."""
    with _limiters_lock:
        if config.limiter_key not in _limiters:
            _limiters[config.limiter_key] = ProviderLimiter(config.concurrency, config.rpm)
        return _limiters[config.limiter_key]


def backoff_delay(attempt: int, base: float, retry_after: float | None, floor: float = 0.0) -> float:
    """Retry-After wins (plus up to 10% jitter, never less); otherwise exponential with jitter,
    never under ``floor`` (a throttled call without Retry-After: DashScope's 429s carry none, and
    its quotas are per minute, so seconds of backoff would only burn the retries)."""
    if retry_after is not None:
        return min(MAX_WAIT, retry_after * (1 + random.random() * 0.1))
    ceiling = min(MAX_WAIT, base * (2**attempt))
    delay = ceiling / 2 + random.random() * ceiling / 2
    return min(MAX_WAIT, max(delay, floor * (1 + random.random() * 0.1)))


def call_with_retries(
    fn: Callable[[], T], config: ProviderConfig, *, what: str, sleep: Callable[[float], None] = time.sleep
) -> T:
    """Run ``fn`` inside the provider's limiter, retrying TransientError up to ``max_retries`` times."""
    limiter = limiter_for(config)
    attempt = 0
    while True:
        started = 0.0
        try:
            with limiter.slot() as started:
                return fn()
        except TransientError as exc:
            if attempt >= config.max_retries:
                raise ProviderError(
                    f"{config.label} still failing after {attempt + 1} attempts ({what}): {exc.reason}",
                    fix="rerun later: finished batches are kept in the translation memory and are not paid again",
                ) from None
            # a 429 without Retry-After after requests of ours went through: the learned window paces the
            # retry and everyone else's requests; the floor is for what the window cannot explain
            paced = exc.rate_limited and exc.retry_after is None and limiter.refused(started)
            # an overloaded reply (503/529) is mostly one busy moment: the first retry backs off as for a
            # 500; the same call overloaded again waits the floor
            overloaded_again = exc.throttled and not exc.rate_limited and attempt >= 1
            floor = config.throttle_floor if (exc.rate_limited and not paced) or overloaded_again else 0.0
            delay = backoff_delay(attempt, config.backoff, exc.retry_after, floor)
            if (exc.retry_after is not None or exc.throttled) and not paced:
                limiter.cool_down(delay)  # everyone calling this provider waits, not only this call
            log.warning(
                "%s: %s; retry %d/%d in %.2fs", config.label, exc.reason, attempt + 1, config.max_retries, delay
            )
            sleep(delay)
            attempt += 1
