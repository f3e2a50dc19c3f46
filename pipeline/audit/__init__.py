"""The audit log: every admin action (corrections, merges, demo resets, spot-check queues) in SQLite."""

from pipeline.audit.records import AuditEntry
from pipeline.audit.repo import audit_log, record_audit

__all__ = ["AuditEntry", "audit_log", "record_audit"]
