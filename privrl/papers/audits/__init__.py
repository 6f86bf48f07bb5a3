"""The Audits chapter: every release of the book audited empirically."""
