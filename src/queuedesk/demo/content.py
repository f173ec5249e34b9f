"""What the demo's tasks say and how its colleagues answer them, per queue, from a random source.

Used for the demo's first data (with a fixed seed) and by the simulated colleagues while it runs.
"""

import random
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

PHOTOS = "Photo moderation"
TRIAGE = "Support triage"
RECEIPTS = "Receipt checks"
QUEUES = (PHOTOS, TRIAGE, RECEIPTS)
WEBHOOK_QUEUE = TRIAGE  # its webhook points at the demo's receiver

# B21: photos are judged by two colleagues, blind, a third when they disagree; what three cannot
# settle waits in the review loop. The verdict is a judgement call: colleagues sometimes differ.
CONSENSUS_QUEUE = PHOTOS
CONSENSUS = {"answers": 2, "max_answers": 3}

IMAGE_BASE_PLACEHOLDER = "http://demo-images.invalid"  # replaced by the side server's address at start

_CAPTIONS = [
    "Sunday hike with the family",
    "New product in our shop, 20% off today only!!",
    "View from the office",
    "Look what I found in the garden",
    "BUY FOLLOWERS cheap, link in bio",
    "Our team at the summer party",
    "First try at landscape photography",
    "Is this the right place to post recipes?",
    "Morning light over the hills",
    "Throwback to last year's trip",
]
_MESSAGES = [
    "I was charged twice for my subscription this month.",
    "The export button does nothing on Firefox.",
    "Do you offer a discount for non-profits?",
    "WIN A FREE CRUISE!!! Click here to claim your prize.",
    "How do I add a colleague to my team account?",
    "The invoice for October shows the wrong VAT number.",
    "Since yesterday's update the app crashes when I open settings.",
    "We'd like a quote for 40 seats, billed yearly.",
    "Can I get a refund for the unused months?",
    "Password reset emails never arrive.",
    "Is there an API to import our customer list?",
    "Cheap watches, best prices, visit our site now",
    "My card was declined but my bank says everything is fine.",
    "The dashboard is very slow in the afternoons.",
    "Can we pay by bank transfer instead of card?",
]
_TEAM_HINTS = {"charged": "billing", "invoice": "billing", "refund": "billing", "card": "billing",
               "pay": "billing", "quote": "sales", "discount": "sales", "seats": "sales",
               "WIN": "spam", "Cheap": "spam"}  # fmt: skip
_MERCHANTS = [
    ("Café Luna", "meals", ["Cappuccino", "Croissant", "Sandwich", "Orange juice"]),
    ("City Taxi", "travel", ["Fare", "Airport surcharge"]),
    ("Paper & Co", "office", ["A4 paper x5", "Pens (box)", "Stapler", "Sticky notes"]),
    ("Rail Express", "travel", ["Ticket, 2nd class", "Seat reservation"]),
    ("Trattoria Roma", "meals", ["Pasta", "Water", "Tiramisu", "Espresso"]),
    ("Hotel Alba", "travel", ["Room, 1 night", "Breakfast", "City tax"]),
    ("TechShop", "office", ["USB-C cable", "Mouse", "Keyboard"]),
]
_NOTES = ["", "", "", "Customer sounds upset", "Second message about this", "Check the account history"]


def _photo(rng: random.Random, today: date) -> dict[str, Any]:
    return {
        "photo": f"{IMAGE_BASE_PLACEHOLDER}/images/photo-{rng.randrange(48)}.png",
        "caption": rng.choice(_CAPTIONS),
    }


def _message(rng: random.Random, today: date) -> dict[str, Any]:
    return {"message": rng.choice(_MESSAGES)}


def _receipt(rng: random.Random, today: date) -> dict[str, Any]:
    merchant, _category, items = rng.choice(_MERCHANTS)
    bought = today - timedelta(days=rng.randrange(1, 20))
    lines = []
    total = 0
    for item in rng.sample(items, k=rng.randint(1, len(items))):
        cents = rng.randrange(150, 9000)
        total += cents
        lines.append(f"{item:<22}{cents / 100:>8.2f}")
    claimed = total if rng.random() < 0.85 else total + rng.choice((100, 1000, -50))
    receipt = "\n".join(
        [
            merchant.upper(),
            *lines,
            "-" * 30,
            f"{'TOTAL EUR':<22}{total / 100:>8.2f}",
            f"{bought:%d/%m/%Y} {rng.randrange(7, 22):02d}:{rng.randrange(60):02d}",
        ]
    )
    return {"receipt": receipt, "claimed": f"{claimed / 100:.2f} EUR on {bought.isoformat()}"}


NEW_TASK: dict[str, Callable[[random.Random, date], dict[str, Any]]] = {
    PHOTOS: _photo,
    TRIAGE: _message,
    RECEIPTS: _receipt,
}


def new_task(queue: str, rng: random.Random, today: date, image_base: str) -> dict[str, Any]:
    data = NEW_TASK[queue](rng, today)
    if "photo" in data:
        data["photo"] = data["photo"].replace(IMAGE_BASE_PLACEHOLDER, image_base)
    return data


def answer(queue: str, data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """What a careful colleague enters for this task (mostly right, now and then not)."""
    if queue == PHOTOS:
        caption = str(data.get("caption", ""))
        spammy = "BUY" in caption or "%" in caption
        verdict = (
            "spam" if spammy else rng.choices(["allow", "blur", "offtopic", "remove"], [80, 6, 10, 4])[0]
        )
        return {
            **data,
            "verdict": verdict,
            "note": "" if verdict == "allow" else rng.choice(["", "see caption"]),
        }
    if queue == TRIAGE:
        message = str(data.get("message", ""))
        team = next((t for word, t in _TEAM_HINTS.items() if word in message), "tech")
        return {**data, "team": team, "note": rng.choice(_NOTES)}
    receipt = str(data.get("receipt", ""))
    merchant = receipt.split("\n", 1)[0]
    category = next((c for m, c, _ in _MERCHANTS if m.upper() == merchant), "other")
    total_line = next((line for line in receipt.split("\n") if line.startswith("TOTAL")), "TOTAL 0")
    total = float(total_line.split()[-1])
    day, month, year = receipt.rsplit("\n", 1)[-1].split()[0].split("/")
    claimed = str(data.get("claimed", ""))
    return {
        **data,
        "total": total,
        "purchased_on": f"{year}-{month}-{day}",
        "category": category,
        "matches": claimed.startswith(f"{total:.2f} "),
    }


# A colleague's slip: now and then the deciding value is another option than the one they meant.
SLIP_CHANCE = 0.08
DECISIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    PHOTOS: ("verdict", ("allow", "blur", "spam", "offtopic", "remove")),
    TRIAGE: ("team", ("billing", "tech", "sales", "spam")),
    RECEIPTS: ("category", ("meals", "travel", "office", "other")),
}


def slip(queue: str, values: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """`values` with the queue's deciding value changed to another option."""
    field, options = DECISIONS[queue]
    return {**values, field: rng.choice([o for o in options if o != values.get(field)])}


def seen_differently(queue: str, values: dict[str, Any], turn: int) -> dict[str, Any]:
    """`values` as the `turn`-th of several colleagues who each see the task another way: the
    deciding value is the option `turn` places after the one meant (a dispute on first run)."""
    field, options = DECISIONS[queue]
    meant = values.get(field)
    start = options.index(meant) if meant in options else 0
    return {**values, field: options[(start + turn) % len(options)]}


def expected(queue: str, data: dict[str, Any]) -> dict[str, Any]:
    """The values a careful reviewer checks a completed task's answers against: the deciding value
    where the task's inputs settle it (empty where they leave it to judgement)."""
    if queue == PHOTOS:
        caption = str(data.get("caption", ""))
        if "BUY" in caption or "%" in caption:
            return {"verdict": "spam"}
        return {"verdict": "allow"} if data.get("verdict") == "spam" else {}
    if queue == TRIAGE:
        message = str(data.get("message", ""))
        return {"team": next((t for word, t in _TEAM_HINTS.items() if word in message), "tech")}
    merchant = str(data.get("receipt", "")).split("\n", 1)[0]
    return {"category": next((c for m, c, _ in _MERCHANTS if m.upper() == merchant), "other")}
