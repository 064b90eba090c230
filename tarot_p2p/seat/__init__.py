"""Driving one seat for a whole game: turns, waits, absences, sync, reconnection, resume.

The one package that uses the links, the meeting and the player's files together.
"""
