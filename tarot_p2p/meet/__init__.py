"""Meeting before a table exists: short codes, their rendezvous, the lobby, the LAN list.

Above the links, which carry its messages, and below the seat, which starts once a player
is seated. A new way to meet touches only this package and its part of ``protocol/``.
"""
