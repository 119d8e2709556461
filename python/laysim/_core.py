"""The binding's machinery: errors, calling the C library with a context, and handles that
are never freed while a call uses them (docs/python.md, "Handles and threads")."""
import contextlib
import ctypes
import threading

from ._lib import lib


class Error(Exception):
    """A failed laysim call: code (enum laysim_status) and the library's message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class InputError(Error, ValueError):
    """Bad input: a malformed file, an unknown name, a bad option (the CLI's exit 2)."""


class LimitError(Error):
    """A time or size limit was reached."""


for _cls in (Error, InputError, LimitError):
    _cls.__module__ = "laysim"    # as users name them
_ERRORS = {1: InputError, 4: LimitError}
_tls = threading.local()


class _Context:
    """A C context: it only carries the last error of the call made with it."""

    def __init__(self):
        self.handle = lib.laysim_new()
        if not self.handle:
            raise MemoryError("laysim_new")

    def __del__(self):
        if lib and self.handle:
            lib.laysim_free(self.handle)


def call(fn, *args):
    """fn(context, *args) for a laysim function that returns a status; raise its error.
    Each call takes a context of this thread nobody else is using (a reward callback may
    call the library while the solve that runs it holds one)."""
    pool = _tls.__dict__.setdefault("contexts", [])
    cx = pool.pop() if pool else _Context()
    try:
        rc = fn(cx.handle, *args)
        if rc:
            msg = lib.laysim_errmsg(cx.handle).decode(errors="replace")
            raise _ERRORS.get(rc, Error)(rc, msg)
    finally:
        pool.append(cx)


def b(x):
    return x if x is None or isinstance(x, bytes) else str(x).encode()


def s(raw):
    return None if raw is None else raw.decode(errors="replace")


def strings(items):
    """A NULL-terminated char ** for a list of strings, or None for an empty one (the
    ctypes array holds references to its bytes, so they live as long as it does)."""
    if not items:
        return None
    return (ctypes.c_char_p * (len(items) + 1))(*[b(x) for x in items], None)


def need(obj, cls, what, optional=False):
    """obj, checked to be a cls (None only when optional): TypeError otherwise."""
    if obj is None and optional:
        return obj
    if not isinstance(obj, cls):
        raise TypeError(f"{what}: expected a laysim.{cls.__name__}, got "
                        f"{type(obj).__name__}")
    return obj


class Handle:
    """An owned C handle. Every call takes it through using(), which counts the call; close()
    (or a with block, or collection) frees it at once when no call is using it, else when
    the last one ends, so a close() from another thread or from a callback of a running call
    never frees memory under that call. A closed handle raises ValueError."""
    _free = None
    _h = None        # a constructor that raised before __init__ leaves nothing to free

    def __init__(self, handle):
        self._lock = threading.Lock()
        self._uses = 0
        self._closing = False
        self._h = handle

    @property
    def closed(self):
        return not self._h or self._closing

    def acquire(self):
        with self._lock:
            if self.closed:
                raise ValueError(f"{type(self).__name__} is closed")
            self._uses += 1
            return self._h

    def release(self):
        with self._lock:
            self._uses -= 1
            last = self._closing and self._uses == 0
        if last:
            self._destroy()

    def close(self):
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._closing or not self._h:
                return
            self._closing = True
            now = self._uses == 0
        if now:
            self._destroy()

    def _destroy(self):
        h, self._h = self._h, None
        if h and self._free and lib:
            getattr(lib, self._free)(h)

    @property
    def handle(self):
        """The raw handle, for a caller that knows no close() can race with it."""
        if self.closed:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._h

    def _describe(self):
        return ""

    def __repr__(self):
        name = f"laysim.{type(self).__name__}"
        if self.closed:
            return f"<{name} (closed)>"
        try:
            return f"<{name} {self._describe()}>".replace(" >", ">")
        except ValueError:         # closed while describing
            return f"<{name} (closed)>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if lib:
            self.close()


@contextlib.contextmanager
def using(*objs):
    """The C handles of objs (None passes as NULL), each counted as in use until the block
    ends."""
    held, handles = [], []
    try:
        for o in objs:
            handles.append(None if o is None else o.acquire())
            if o is not None:
                held.append(o)
        yield handles
    finally:
        for o in reversed(held):
            o.release()
