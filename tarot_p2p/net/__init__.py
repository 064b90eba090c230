"""The links: frames, Noise XX, the hello that opens a connection, the hub and the relay.

Bytes move here and nothing else: who may sit is the lobby's (``tarot_p2p.meet``), what a
seat does with a message is the runner's (``tarot_p2p.seat``). A new transport touches
only this package and ``protocol/wire.md``.
"""
