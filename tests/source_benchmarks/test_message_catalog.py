"""MessageCatalog: a benchmark's run-time messages translated by exact text, template, then fragment."""

from __future__ import annotations

from source_benchmarks.message_catalog import MessageCatalog


def test_exact_then_templates_with_slots_kept_then_fragments():
    catalog = MessageCatalog(
        [
            ("Order not found", "Pedido no encontrado"),
            ("Order {order_id} is {status}", "El pedido {order_id} está {status}"),
            ("User {user_id} not found", "Usuario {user_id} no encontrado"),
            ("payment method", "método de pago"),
            ("same", "same"),  # identical pairs carry nothing
        ]
    )
    assert catalog.translate("Order not found") == "Pedido no encontrado"
    assert catalog.translate("Order #W1 is pending") == "El pedido #W1 está pending"  # slot values stay as they are
    assert catalog.translate("Invalid payment method: gift card") == "Invalid método de pago: gift card"
    assert catalog.translate("Something else") == "Something else"
    assert "same" not in catalog.exact


def test_the_longest_template_wins():
    catalog = MessageCatalog(
        [
            ("Error: {detail}", "Erreur : {detail}"),
            ("Error: user {user_id} blocked", "Erreur : utilisateur {user_id} bloqué"),
        ]
    )
    assert catalog.translate("Error: user u1 blocked") == "Erreur : utilisateur u1 bloqué"
    assert catalog.translate("Error: disk full") == "Erreur : disk full"
