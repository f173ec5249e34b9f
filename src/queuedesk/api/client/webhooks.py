"""The queue's webhook: its target, secret, delivery log and test."""

from typing import Literal

from queuedesk.api import errors, models
from queuedesk.api.blocks import is_http_url
from queuedesk.api.client.queues import QueuesMixin
from queuedesk.api.client.results import DeliverySort, check_page
from queuedesk.api.client.transport import body_of


class WebhookMixin(QueuesMixin):
    """A6, A7, B9-B11, B16."""

    async def webhook(self, queue_id: int) -> models.Webhook:
        """A6. `target` is "" when the queue has no webhook."""
        what = f"Reading the webhook of queue {queue_id}"
        return self._parse(
            models.Webhook, await self._get(f"{await self._queue_path(queue_id, what)}/webhook", what), what
        )

    async def set_webhook(self, queue_id: int, target: str | None) -> None:
        """A7. `""` or None removes the webhook; a target must be an http(s) URL (ValidationError,
        nothing sent: the original would store an ftp:// one, which no delivery can reach)."""
        what = f"Setting the webhook of queue {queue_id}"
        if target and not is_http_url(target):
            message = (
                f"{target!r} is not an http(s) address: only http:// and https:// targets can be called, "
                "e.g. https://hooks.example.com/queuedesk"
            )
            raise errors.ValidationError(
                f"{what}: nothing was sent: {message}",
                errors=[models.ErrorItem(field="target", message=message)],
                hint="",
            )
        path = f"{await self._queue_path(queue_id, what)}/webhook"
        await self._request(
            "PUT", path, what, json={"target": target or ""}, idempotent=True, ok=(200, 201, 204)
        )

    async def remove_webhook(self, queue_id: int) -> None:
        """B9 (falls back to A7 with "" on a documented-interface-only server)."""
        if not await self.supports_extensions():
            await self.set_webhook(queue_id, "")
            return
        what = f"Removing the webhook of queue {queue_id}"
        await self._request(
            "DELETE", f"{await self._queue_path(queue_id, what)}/webhook", what, idempotent=True
        )

    async def webhook_secret(self, queue_id: int) -> str:
        what = f"Reading the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret"
        return self._parse(models.WebhookSecret, await self._get(path, what), what).secret

    async def rotate_webhook_secret(self, queue_id: int) -> str:
        what = f"Rotating the webhook secret of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/secret/rotate"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.WebhookSecret, body_of(response, what), what).secret

    async def deliveries(
        self,
        queue_id: int,
        *,
        offset: int = 0,
        limit: int = 100,
        order: Literal["asc", "desc"] | None = None,
        sort: DeliverySort | None = None,
    ) -> models.DeliveryPage:
        """B10. The webhook delivery log, newest first (`order="asc"`: oldest first; `sort` by
        another column)."""
        check_page(offset, limit)
        what = f"Listing webhook deliveries of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries"
        params = {"offset": offset, "limit": limit, "order": order, "sort": sort}
        return self._parse(models.DeliveryPage, await self._get(path, what, params), what)

    async def delivery(self, queue_id: int, delivery_id: int) -> models.DeliveryDetail:
        what = f"Reading webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}"
        return self._parse(models.DeliveryDetail, await self._get(path, what), what)

    async def redeliver(
        self, queue_id: int, delivery_id: int, *, to_current_target: bool = False
    ) -> models.Delivery:
        """B11. Makes the delivery pending and due now; with `to_current_target`, sent to the queue's
        webhook as it is now instead of the delivery's own target (the event id stays)."""
        what = f"Redelivering webhook delivery {delivery_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/deliveries/{delivery_id}/redeliver"
        body = {"target": "current"} if to_current_target else None
        response = await self._request("POST", path, what, json=body, idempotent=False)
        return self._parse(models.Delivery, body_of(response, what), what)

    async def test_webhook(self, queue_id: int) -> models.WebhookTestResult:
        """B16. Sends a signed `ping` to the current target now; not a delivery, never retried."""
        what = f"Testing the webhook of queue {queue_id}"
        path = f"{await self._ext_queue_path(queue_id, what)}/webhook/test"
        response = await self._request("POST", path, what, idempotent=False)
        return self._parse(models.WebhookTestResult, body_of(response, what), what)
