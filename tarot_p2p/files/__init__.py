"""The player's files: identity, a seat's transcripts and sheet, the history, caches.

Lowest of the I/O packages: it reads and writes disks only, so the history and the audit
of a folder never need a socket, and nothing that drives a seat is needed to read one.
"""
