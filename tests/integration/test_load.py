"""A bounded load test: 20 concurrent sessions on one embedded server, no errors."""

from benchmarks.load import load_test
from pipeline.lab import Lab


async def test_twenty_concurrent_sessions_run_without_errors(lab: Lab, demo: str) -> None:
    report = await load_test(lab, demo, sessions=20, queries_per_session=2, time_limit_s=120)
    assert report.errors == 0, report.error_samples
    assert report.queries == 40
    assert 0 < report.p50_ms <= report.p95_ms <= report.max_ms
