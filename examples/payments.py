"""
A synthetic day of payments for the fraud notebook: accounts that log in and move money, with two kinds of fraud
planted among ordinary traffic (seeded, so every run makes the same events).

- Mule chains: money passed on from account to account within minutes (a transfer out of the account the last one
  paid), the shape of the equality benchmark's chains (`bench/sparkbench/equality.py`).
- Account takeovers: a login from a device the account has never used, then transfers from that device within minutes.

Each event: `event_type` (LOGIN, TRANSFER, DEPOSIT, WITHDRAW), `id`, `ts` (a timestamp), `acct`, `peer` (a transfer's
payee), `amount`, `device`, and `known_device` (whether the account used that device before the day).
"""

from __future__ import annotations

import datetime as dt
import random
from typing import List, Tuple

SCHEMA = (
    "event_type string, id long, ts timestamp, acct int, peer int, amount double, device string, known_device boolean"
)
ACCOUNTS = 2_000
DAY = dt.datetime(2024, 3, 1)
Event = Tuple[str, int, dt.datetime, int, int, float, str, bool]


def events(seed: int = 7, ordinary: int = 60_000, chains: int = 25, takeovers: int = 15) -> List[Event]:
    """The day's events in time order, ids in that order."""
    rng = random.Random(seed)
    home = {a: f"d{a}" for a in range(ACCOUNTS)}
    drafts: List[Tuple[float, str, int, int, float, str, bool]] = []  # (second of the day, type, acct, peer, ...)

    def add(
        second: float, kind: str, acct: int, peer: int = -1, amount: float = 0.0, device: str = "", known: bool = True
    ) -> None:
        drafts.append((second, kind, acct, peer, round(amount, 2), device or home[acct], known))

    for _ in range(ordinary):
        second, acct = rng.uniform(0, 86_400), rng.randrange(ACCOUNTS)
        kind = rng.choices(["LOGIN", "TRANSFER", "DEPOSIT", "WITHDRAW"], weights=[3, 4, 2, 1])[0]
        if kind == "TRANSFER":
            add(second, kind, acct, rng.randrange(ACCOUNTS), rng.lognormvariate(4, 1))
        else:
            add(second, kind, acct, amount=0.0 if kind == "LOGIN" else rng.lognormvariate(4, 1))
    for _ in range(chains):  # 3 to 5 accounts pass a large amount on, a few minutes apart, each keeping a little
        second, amount = rng.uniform(0, 80_000), rng.uniform(5_000, 20_000)
        accounts = rng.sample(range(ACCOUNTS), rng.randint(3, 5))
        for payer, payee in zip(accounts, accounts[1:]):
            add(second, "TRANSFER", payer, payee, amount)
            second, amount = second + rng.uniform(30, 180), amount * rng.uniform(0.95, 0.99)
    for _ in range(takeovers):  # a login from a new device, then 2 to 4 transfers from it within minutes
        second, acct, device = rng.uniform(0, 80_000), rng.randrange(ACCOUNTS), f"x{rng.randrange(10**6)}"
        add(second, "LOGIN", acct, device=device, known=False)
        for _ in range(rng.randint(2, 4)):
            second += rng.uniform(20, 90)
            add(second, "TRANSFER", acct, rng.randrange(ACCOUNTS), rng.uniform(500, 3_000), device, known=False)
    drafts.sort()
    return [
        (kind, i, DAY + dt.timedelta(seconds=round(second, 3)), acct, peer, amount, device, known)
        for i, (second, kind, acct, peer, amount, device, known) in enumerate(drafts)
    ]
