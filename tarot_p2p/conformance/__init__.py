"""The conformance kit: scripted seats and a hub that test another implementation over TCP
(``tarot-p2p conformance``; the contract an implementation meets is
``protocol/conformance.md``)."""
