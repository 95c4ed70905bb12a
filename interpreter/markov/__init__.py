"""A procedure's exact odds: its run as a Markov chain over states (``chains``).

Named ``markov`` rather than ``odds`` so that it never shadows the function
``interpreter.odds``.
"""
