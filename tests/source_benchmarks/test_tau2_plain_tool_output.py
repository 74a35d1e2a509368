"""A variant's tool results reach the agent as text, including those a τ² tool dumps itself.

τ² retail's `list_all_product_types` returns `json.dumps(product_dict)`, a string `to_json_str`
passes through; with a Thai product name the stock harness shows it as \\u escapes. Real retail data
with one product renamed, through tau2's own environment and `get_response`.
"""

from __future__ import annotations

import json
import shutil

import tau2.domains.retail.tools as retail_tools
from tau2.data_model.message import ToolCall

from source_benchmarks.tau_common.adapter import tau2_package_root
from source_benchmarks.tau_common.domains import DOMAINS
from source_benchmarks.tau_common.environment_factory import Tau2EnvironmentFactory

THAI_NAME = "กล้องแอ็กชัน"


def _factory(tmp_path, plain: bool) -> Tau2EnvironmentFactory:
    source = tau2_package_root() / "data" / "tau2" / "domains" / "retail"
    for name in ("db.json", "policy.md", "tasks.json"):
        shutil.copy(source / name, tmp_path / name)
    db = json.loads((tmp_path / "db.json").read_text())
    product = next(p for p in db["products"].values() if p["name"] == "Action Camera")
    product["name"] = THAI_NAME
    (tmp_path / "db.json").write_text(json.dumps(db, ensure_ascii=False))
    factory = Tau2EnvironmentFactory(DOMAINS["tau2-retail"], lambda filename: tmp_path / filename)
    factory.plain_tool_output = plain
    return factory


def _product_list(factory: Tau2EnvironmentFactory) -> str:
    env = factory()
    call = ToolCall(id="1", name="list_all_product_types", arguments={}, requestor="assistant")
    return env.get_response(call).content


def test_a_variant_sees_a_self_dumped_tool_result_as_text(tmp_path):
    shown = _product_list(_factory(tmp_path, plain=True))
    assert THAI_NAME in shown and "\\u" not in shown
    assert json.loads(shown)[THAI_NAME]  # the same JSON, the product id under its Thai name


def test_the_source_harness_keeps_its_escaping(tmp_path):
    shown = _product_list(_factory(tmp_path, plain=False))
    assert THAI_NAME not in shown and "\\u0e01" in shown
    assert retail_tools.json is json  # swapped during a variant's call only


def test_after_a_variant_call_the_stock_harness_escapes_again(tmp_path):
    plain, stock = _factory(tmp_path, plain=True), _factory(tmp_path, plain=False)
    assert "\\u" not in _product_list(plain)
    assert "\\u0e01" in _product_list(stock)
