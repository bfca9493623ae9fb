"""Turn the service's undocumented status and wallet payloads into typed readings.

Pure functions, no I/O: given already-parsed JSON, `normalize_status` and `normalize_wallet`
return a StatusReading / WalletReading or raise PollError(BAD_PAYLOAD) -- never anything else,
whatever the input. Shapes are recognised on their own (envelopes, any key case style, many
state-word spellings); a StatusMapping / WalletMapping names exact paths for the shapes that
are not.
"""

from tqe_monitor.normalizer.mapping import StatusMapping, WalletMapping
from tqe_monitor.normalizer.status import normalize_status
from tqe_monitor.normalizer.wallet import normalize_wallet

__all__ = ["StatusMapping", "WalletMapping", "normalize_status", "normalize_wallet"]
