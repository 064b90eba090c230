"""Hypothesis profiles for the whole suite.

``mutation`` (chosen by ``tools/mutation.py`` through ``[tool.mutmut]``) has no deadline: a
mutation run shares the machine and forks a process per mutant, so an example that takes
longer than usual says nothing about the code, and a missed deadline would count as a
killed mutant.
"""

from hypothesis import settings

settings.register_profile("mutation", deadline=None)
