"""Layer 3, the chapters: one sub-package per paper, and one for the Audits chapter.

Each fills the chapter layer's skeleton with its paper's profile, runs, checks, claims, errata,
releases and figures. Chapters import the layers below, never each other.
"""
