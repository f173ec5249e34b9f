"""`queuedesk queue consensus QUEUE [--answers N [--max M] [--agreement A] [--blocks a,b] | --off]`:
read or set a queue's consensus (B21). Without a setting it says what the queue's are."""

import argparse
from typing import TYPE_CHECKING, Any

from queuedesk.commands.common import OK, UsageError, client_from, find_queue, print_json

if TYPE_CHECKING:
    from queuedesk.api.consensus_rules import Wanted


def _agreement(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a share from 0.5 to 1 (or 50%-100%), not {text!r}"
        ) from None
    return value


def _block_list(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError("name at least one block id, e.g. --blocks category,flag")
    return names


def _wanted(args: argparse.Namespace) -> "Wanted | None":
    """The settings asked for; None for --off. UsageError for a mix that means nothing."""
    given = [flag for flag, value in (("--max", args.max), ("--agreement", args.agreement),
                                      ("--blocks", args.blocks)) if value is not None]  # fmt: skip
    if args.off:
        if args.answers is not None:
            given.insert(0, "--answers")
        if given:
            raise UsageError(f"--off takes no other setting (given: {', '.join(given)})")
        return None
    if args.answers is None:
        raise UsageError(f"{', '.join(given)} needs --answers N (2-10): how many workers answer each task")
    from queuedesk.api.consensus_rules import Wanted

    return Wanted(args.answers, args.max, args.agreement, args.blocks)


async def consensus(args: argparse.Namespace) -> int:
    from queuedesk.api.consensus_rules import described, problems

    changing = args.off or any(v is not None for v in (args.answers, args.max, args.agreement, args.blocks))
    wanted = _wanted(args) if changing else None
    async with client_from(args) as client:
        queue = await find_queue(client, args.queue)
        if changing:
            detail = await client.queue_with_consensus(queue.id)  # NoConsensus first, on an older server
            if wanted is not None and (found := problems(wanted, detail.data)):
                raise UsageError(f"nothing was changed: {'; '.join(found)}")
            detail = await client.set_consensus(
                queue.id,
                None if wanted is None else wanted.answers,
                max_answers=None if wanted is None else wanted.max_answers,
                agreement=None if wanted is None else wanted.agreement,
                blocks=None if wanted is None else wanted.blocks,
            )
        else:
            detail = await client.queue_with_consensus(queue.id)
    settings = detail.consensus
    if args.json:
        shown: dict[str, Any] = {"queue_id": detail.id, "consensus": None}
        if settings is not None:
            shown["consensus"] = settings.model_dump(mode="json")
        print_json(shown)
        return OK
    now = " now" if changing else ""
    print(f"Queue {detail.id} {detail.name!r}{now}: {described(settings, detail.data)}")
    return OK


def add_action(
    actions: "argparse._SubParsersAction[argparse.ArgumentParser]", connection: argparse.ArgumentParser
) -> None:
    setting = actions.add_parser(
        "consensus",
        parents=[connection],
        help="read or set a queue's consensus: several workers answer each task until they agree (admin)",
        description="Without a setting: what the queue's consensus is. With --answers: each task is "
        "answered, blind, by that many workers (more, up to --max, while they disagree); a task they "
        "cannot settle goes to review. --off: one answer completes a task again (tasks already "
        "disputed stay disputed).",
        epilog="example: queuedesk queue consensus Sorting --answers 2 --max 3 --agreement 0.5 "
        "--blocks category,urgent",
    )
    setting.add_argument("queue", help="queue id or name")
    setting.add_argument("--answers", type=int, metavar="N", help="answers each task needs (2-10)")
    setting.add_argument(
        "--max", type=int, metavar="M", help="answers at most, while they disagree (N-10; default N)"
    )
    setting.add_argument(
        "--agreement",
        type=_agreement,
        metavar="SHARE",
        help="share of the answers one value needs on each compared block (0.5-1, or 50%%-100%%; default 0.5)",
    )
    setting.add_argument(
        "--blocks",
        type=_block_list,
        metavar="IDS",
        help="the compared blocks, a comma list (default: every selection and yes/no block workers fill)",
    )
    setting.add_argument("--off", action="store_true", help="no consensus: one answer completes a task")
    setting.set_defaults(client_command=consensus)
