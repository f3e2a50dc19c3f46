"""The embedded FalkorDB's machinery: one server per data directory, kept alive by its clients' leases.

- `paths.py`       the files it keeps in the data directory;
- `locks.py`       OS file locks (flock): the start lock, the clients' shared lease, the server lock;
- `persistence.py` what was on disk at the last clean stop, and the refusal to start from anything else;
- `redis_process.py` the redis-server command line, its start, and speaking to it on the socket;
- `supervisor.py`  the process that owns redis-server and stops it cleanly when no client holds a lease;
- `status.py`      how the supervisor tells the client that started it whether the server is ready.

`pipeline/graph/embedded_falkordb.py` is the client side every process uses.
"""
