"""A later block of a section that keeps an example's names and adds some is its new version."""

from __future__ import annotations

from knowledge.code_versions import code_names, rewrites, superseded

DRAFT = """```python
import shop

total = 0

@shop.on_add
async def add_item(item: shop.Item):
    global total
    total += item.price
    await shop.Notice(text=f"Total: {total}").show()
```"""
FIXED = """```python
import shop

@shop.on_add
async def add_item(item: shop.Item):
    total = shop.cart.get("total")
    total += item.price
    shop.cart.set("total", total)
    await shop.Notice(text=f"Total: {total}").show()
```"""
OTHER = """```python
def remove_item(basket, sku):
    basket.discard(sku)
```"""
SAME_DATA = """```python
send("total price of the item")
```"""


def test_names_leave_out_strings_and_the_fence() -> None:
    assert code_names('```python\nlog("add_item total")\n```') == frozenset({"log"})


def test_the_rewritten_example_is_a_new_version_of_the_first() -> None:
    assert rewrites(DRAFT, FIXED)
    assert not rewrites(FIXED, DRAFT)  # read the other way round, it drops names
    assert not rewrites(DRAFT, OTHER)
    assert not rewrites(DRAFT, SAME_DATA)


def test_only_a_later_block_of_the_same_section_supersedes() -> None:
    blocks = [("howto", DRAFT, (1, 4)), ("howto", FIXED, (2, 1)), ("howto", OTHER, (2, 3))]
    assert superseded(blocks) == {0: 1}
    assert superseded([("howto", FIXED, (1, 0)), ("howto", DRAFT, (2, 0))]) == {}  # the draft comes later
    assert superseded([("intro", DRAFT, (1, 0)), ("advanced", FIXED, (2, 0))]) == {}
