"""Layer 4, the book pipeline: execute the chapter notebooks, generate the pages, build and check
the site, and the ``privrl`` command line. It computes no number of a run: editing it leaves
sweep caches valid and recorded runs current (:func:`privrl.chapter.records.computes_numbers`).
"""
