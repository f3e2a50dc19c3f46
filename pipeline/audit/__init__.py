"""The audit log: every admin action (corrections, merges, demo resets, spot-check queues) in SQLite."""

from pipeline.audit.describe import ACTION_LABELS, Described, action_label, describe
from pipeline.audit.records import AuditEntry
from pipeline.audit.repo import AuditFilter, audit_facets, audit_log, filtered_audit_log, record_audit

__all__ = [
    "ACTION_LABELS",
    "AuditEntry",
    "AuditFilter",
    "Described",
    "action_label",
    "audit_facets",
    "audit_log",
    "describe",
    "filtered_audit_log",
    "record_audit",
]
