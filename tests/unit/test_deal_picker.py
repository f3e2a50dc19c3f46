"""The sidebar's deal labels fit its box (24 characters), tell deals apart, and the caption keeps the full text."""

from __future__ import annotations

from dashboard.common.deal_picker import LABEL_CHARS, deal_caption, deal_labels, short_id
from pipeline.deals.records import DealInfo

UUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def deal(group_id: str, name: str | None = None) -> DealInfo:
    return DealInfo(group_id, name or group_id, "", "graphiti", None, 384, None, None)


def test_a_short_name_is_shown_whole_and_a_long_one_cut_to_fit() -> None:
    labels = deal_labels([deal("demo", "Project Halcyon - sale of Halcyon Freight Systems"), deal("acme", "Acme")])
    assert labels == {"demo": "Project Halcyon - sale…", "acme": "Acme"}
    assert all(len(label) <= LABEL_CHARS for label in labels.values())


def test_a_uuid_group_id_without_a_name_keeps_its_head_and_tail() -> None:
    assert deal_labels([deal(UUID)]) == {UUID: "7c9e6679-7425-40de-…0ae7"}
    assert short_id("demo") == "demo" and len(short_id(UUID)) == LABEL_CHARS
    assert short_id(UUID, 9) == "7c9e6679…"


def test_deals_of_the_same_name_say_their_ids() -> None:
    name = "Project Halcyon - sale of Halcyon Freight Systems"
    labels = deal_labels([deal("demo", name), deal(UUID, name)])
    assert labels == {"demo": "Project Hal… · demo", UUID: "Project Hal… · 7c9e6679…"}
    assert all(len(label) <= LABEL_CHARS for label in labels.values())


def test_ids_alike_in_their_first_characters_say_more_of_them() -> None:
    name = "Project Halcyon - sale of Halcyon Freight Systems"
    ids = ["demo_more_a", "demo_more_b", "demo_admin_gate", "demo"]
    labels = deal_labels([deal(group_id, name) for group_id in ids])
    assert labels == {  # only the deals whose labels would still be alike say more
        "demo_more_a": "demo_more_a",
        "demo_more_b": "demo_more_b",
        "demo_admin_gate": "Project Hal… · demo_adm…",
        "demo": "Project Hal… · demo",
    }
    a, b = UUID, UUID[:-1] + "0"
    assert deal_labels([deal(a, "Same"), deal(b, "Same")]) == {
        a: "7c9e6679-7425-40de-…0ae7",
        b: "7c9e6679-7425-40de-…0ae0",
    }
    c = UUID[:20] + "f" + UUID[21:]  # alike in head and tail too: the whole ids
    assert deal_labels([deal(a, "Same"), deal(c, "Same")]) == {a: a, c: c}


def test_the_caption_has_the_full_name_and_id_as_text() -> None:
    caption = deal_caption(deal(UUID, "[click](http://evil.example) **Deal**"))
    assert "\\[click\\]" in caption and "\\*\\*Deal\\*\\*" in caption
    assert caption.endswith(f"group id: {UUID}")
    assert deal_caption(deal(UUID)) == f"group id: {UUID}"
