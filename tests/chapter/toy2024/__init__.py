"""Toy (2024), *A private mean*: the sixth paper of the README's guide, written file for file as
the guide says (``tests/chapter/test_sixth_paper.py`` runs it through ``Chapter.run``).

The paper releases the mean of ``n`` records in [0, 1] with the Laplace mechanism and claims
that its error shrinks as ``n`` grows."""
