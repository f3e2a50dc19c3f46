"""Errors whose message is meant for the person using the tool: one line, what failed, what to do."""


class RetrievalLabError(Exception):
    """Base class: `str(error)` is shown as it is in the CLI and the dashboard."""


class BackendUnavailable(RetrievalLabError):
    """The graph backend could not be started or reached."""


class UnknownDeal(RetrievalLabError):
    """No deal with that group_id exists in the backend."""


class EmbedderMismatch(RetrievalLabError):
    """The deal was built with another embedder than the one configured."""


class InvalidInput(RetrievalLabError):
    """User input was rejected before anything was written or queried."""


class DataFileError(RetrievalLabError):
    """An input file (BEIR corpus, queries, qrels, demo data) is malformed."""


class EmbedderUnavailable(RetrievalLabError):
    """The embedder could not embed: no key, a refused key, a failing service, vectors of the wrong size."""


class ReadOnly(RetrievalLabError):
    """A write was asked of a graph attached read-only (the whole backend, or one deal); nothing was written."""


class StoreUnavailable(RetrievalLabError):
    """The SQLite store cannot be used: missing while the embedded graph it describes holds deals, or unreadable
    (not a database, damaged, no permission). Nothing is started on an empty store in its place."""
