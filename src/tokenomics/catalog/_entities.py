"""Validated catalog objects: one pydantic model per kind of catalog entry.

Each object holds plain numbers for computation (field names carry their units) and a
``provenance`` mapping from each field to its :class:`Provenance` (value, unit, source, as-of date,
confidence, note), so every number can be traced to where it came from.
"""

from __future__ import annotations

import datetime as dt
import html
import math
from typing import Any, ClassVar, Literal, Self

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tokenomics._validate import unknown_name_error


class Provenance(BaseModel):
    """Where one catalog value came from.

    Attributes
    ----------
    value : float
        The value, in ``unit``.
    unit : str
        The vocabulary's unit of the parameter.
    source : str
        URL, document or file (with section) the value was taken from.
    as_of : datetime.date
        Date of the source (publication, page check or commit).
    confidence : str
        ``verified``, ``secondary``, ``estimate`` or ``unverified``.
    note : str
        Derivation, caveats or a disagreeing source.
    """

    model_config = ConfigDict(frozen=True)

    value: float
    unit: str
    source: str
    as_of: dt.date
    confidence: str
    note: str = ""


class CatalogEntry(BaseModel):
    """Base class of catalog objects: numbers with provenance, a table view and a Jupyter view."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provenance: dict[str, Provenance] = Field(default_factory=dict, repr=False)

    _vocabulary_table: ClassVar[str] = ""

    def numeric_fields(self) -> list[str]:
        """Return the names of the numeric (provenanced) fields, in declaration order.

        Returns
        -------
        list of str
            Field names whose values come from a catalog row.
        """
        return [n for n in type(self).model_fields if n in self.provenance or _is_numeric_field(type(self), n)]

    def to_frame(self) -> pd.DataFrame:
        """Return the entry as a long table: one row per value with its provenance.

        Returns
        -------
        pandas.DataFrame
            Columns ``parameter, value, unit, source, as_of, confidence, note``; fields with no
            value (not applicable or not published) are listed with value ``None`` and an empty
            source.
        """
        rows = []
        for name in self.numeric_fields():
            prov = self.provenance.get(name)
            rows.append(
                {
                    "parameter": name,
                    "value": getattr(self, name),
                    "unit": prov.unit if prov else "",
                    "source": prov.source if prov else "",
                    "as_of": prov.as_of if prov else None,
                    "confidence": prov.confidence if prov else "",
                    "note": prov.note if prov else "",
                }
            )
        return pd.DataFrame(rows)

    def with_values(self, *, source: str = "user override", **values: float) -> Self:
        """Return a copy with some values replaced, recording the override in the provenance.

        Parameters
        ----------
        source : str
            Provenance text recorded for the new values (default ``"user override"``).
        **values : float
            Field name -> new value, in the field's unit.

        Returns
        -------
        CatalogEntry
            A validated copy; the original is unchanged.

        Raises
        ------
        KeyError
            If a name is not a numeric field of this entry (close matches listed).
        ValueError
            If a new value is outside the vocabulary's range for the parameter (kind, plausible
            maximum, percent given for a fraction), naming the field and the allowed range.
        """
        from tokenomics.catalog._registry import REGISTRY
        from tokenomics.catalog._tidy import check_value

        numeric = self.numeric_fields()
        prov = dict(self.provenance)
        vocabulary = REGISTRY.vocabulary()
        for name, value in values.items():
            if name not in numeric:
                raise unknown_name_error(f"{type(self).__name__} field", name, numeric)
            spec = vocabulary.get((self._vocabulary_table, name))
            if spec is not None and (problem := check_value(float(value), spec)):
                raise ValueError(f"{name}: {problem}")
            old = prov.get(name)
            prov[name] = Provenance(
                value=float(value),
                unit=old.unit if old else "",
                source=source,
                as_of=dt.datetime.now(dt.UTC).date(),
                confidence="estimate",
                note=f"overrides {old.value} from {old.source}" if old else "",
            )
        data = self.model_dump()
        data.update(values)
        data["provenance"] = prov
        try:
            return type(self).model_validate(data)
        except ValidationError as err:  # one line per problem, without pydantic's dump of the input
            raise ValueError("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in err.errors())) from None

    def _repr_html_(self) -> str:
        """Render as an HTML table in Jupyter: identity, then each value with unit and source."""
        ident = {
            k: v
            for k, v in self.model_dump(exclude={"provenance"}).items()
            if k not in self.numeric_fields()
        }
        head = ", ".join(f"<b>{html.escape(k)}</b>: {html.escape(str(v))}" for k, v in ident.items())
        frame = self.to_frame()
        return f"<div><p>{type(self).__name__} — {head}</p>{frame.to_html(index=False, na_rep='')}</div>"


def _is_numeric_field(cls: type[BaseModel], name: str) -> bool:
    ann = str(cls.model_fields[name].annotation)
    return any(t in ann for t in ("float", "int")) and "bool" not in ann


class Hardware(CatalogEntry):
    """An accelerator and the system it ships in.

    Per-accelerator unless the name says otherwise. An "accelerator" is what the vendor prices
    and counts as one GPU: for Vera Rubin, one Rubin package (two dies), 72 per rack.

    Attributes
    ----------
    hardware_id : str
        Catalog id, e.g. ``"gb200-nvl72"``.
    name, vendor, family, accelerator_kind, system : str
        Display name, vendor, architecture family, ``gpu``/``tpu``/``asic`` and the purchasable
        system (e.g. ``"NVL72 rack"``).
    aliases : tuple of str
        Other names accepted by :func:`tokenomics.hardware`.
    serving_role : {"any", "prefill"}
        ``"prefill"`` for a prefill-only (context) part such as Rubin CPX: it serves only as
        the prefill pool of a disaggregated plan (:func:`tokenomics.perf.disagg.plan_points`),
        never alone (see :attr:`prefill_only`).
    bf16_dense_tflops, fp8_dense_tflops, fp4_dense_tflops : float or None
        Peak dense tensor throughput [TFLOP/s]; ``None`` where the precision is not supported.
    int8_dense_tops : float or None
        Peak dense INT8 throughput [TOP/s].
    hbm_capacity_gb : float
        HBM capacity [GB, 1e9 bytes].
    hbm_bandwidth_tb_per_s : float
        HBM bandwidth [TB/s, 1e12 bytes/s].
    scaleup_domain_accelerators : int
        Accelerators in one scale-up domain.
    scaleup_bw_unidir_gb_per_s : float
        Scale-up bandwidth per accelerator, one direction [GB/s].
    scaleout_bw_unidir_gb_per_s : float or None
        Scale-out network bandwidth per accelerator, one direction [GB/s].
    host_memory_gb_per_accelerator : float or None
        Host DRAM per accelerator [GB].
    host_link_bw_unidir_gb_per_s : float or None
        Accelerator-to-host bandwidth, one direction [GB/s].
    host_link_latency_us : float or None
        Latency of one small read from host memory over that link [us].
    nvme_capacity_tb_per_accelerator, nvme_read_bw_gb_per_s_per_accelerator : float or None
        Local NVMe cache capacity [TB] and sequential read bandwidth [GB/s] per accelerator.
    nvme_read_latency_us, nvme_random_read_kiops_per_accelerator : float or None
        NVMe 4 KiB random-read latency [us] and rate [thousand reads/s] per accelerator.
    cxl_memory_gb_per_accelerator, cxl_bw_gb_per_s_per_accelerator, cxl_latency_us : float or None
        Optional CXL memory pool per accelerator: capacity [GB], read bandwidth [GB/s], latency [us].
    tdp_w : float or None
        Chip TDP/TGP [W].
    it_power_kw_per_accelerator : float or None
        IT power per accelerator, before PUE [kW].
    facility_power_kw_per_accelerator : float or None
        All-in facility power per accelerator, after PUE [kW].
    accelerators_per_system : int
        Accelerators per purchasable system.
    release_year : int
        Year of volume availability.
    """

    _vocabulary_table: ClassVar[str] = "hardware"

    hardware_id: str
    name: str
    vendor: str
    family: str
    accelerator_kind: str
    system: str
    aliases: tuple[str, ...] = ()
    serving_role: Literal["any", "prefill"] = "any"
    bf16_dense_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    int8_dense_tops: float | None = None
    hbm_capacity_gb: float
    hbm_bandwidth_tb_per_s: float
    scaleup_domain_accelerators: int
    scaleup_bw_unidir_gb_per_s: float
    scaleout_bw_unidir_gb_per_s: float | None = None
    host_memory_gb_per_accelerator: float | None = None
    host_link_bw_unidir_gb_per_s: float | None = None
    host_link_latency_us: float | None = None
    nvme_capacity_tb_per_accelerator: float | None = None
    nvme_read_bw_gb_per_s_per_accelerator: float | None = None
    nvme_read_latency_us: float | None = None
    nvme_random_read_kiops_per_accelerator: float | None = None
    cxl_memory_gb_per_accelerator: float | None = None
    cxl_bw_gb_per_s_per_accelerator: float | None = None
    cxl_latency_us: float | None = None
    tdp_w: float | None = None
    it_power_kw_per_accelerator: float | None = None
    facility_power_kw_per_accelerator: float | None = None
    accelerators_per_system: int
    release_year: int

    @field_validator("serving_role", mode="before")
    @classmethod
    def _serving_role(cls, value: Any) -> Any:
        # a system added without the column (an empty cell) serves alone
        if value is None or (isinstance(value, float) and math.isnan(value)) or str(value).strip() == "":
            return "any"
        return str(value).strip().lower()

    @property
    def prefill_only(self) -> bool:
        """Whether the part serves only as a disaggregated prefill pool (``serving_role == "prefill"``)."""
        return self.serving_role == "prefill"

    def dense_tflops(self, precision: str) -> float:
        """Return peak dense tensor throughput at a precision.

        Parameters
        ----------
        precision : str
            ``"bf16"``/``"fp16"``, ``"fp8"``/``"int8"``, ``"fp4"``/``"nvfp4"``/``"mxfp4"``/``"int4"``.

        Returns
        -------
        float
            Peak dense throughput [TFLOP/s]. Integer precisions use the floating-point rate of
            the same width where the chip has no separate integer rate (INT4 weights are
            dequantised to FP8 on chips without FP4 units).

        Raises
        ------
        KeyError
            For an unknown precision.
        ValueError
            If the accelerator has no rate at that precision or below.
        """
        from tokenomics.precision import canonical_precision

        prec = canonical_precision(precision)
        fields = {
            "fp4": ("fp4_dense_tflops", "fp8_dense_tflops", "bf16_dense_tflops"),
            "fp8": ("fp8_dense_tflops", "bf16_dense_tflops"),
            "bf16": ("bf16_dense_tflops",),
        }[prec]
        for f in fields:
            value = getattr(self, f)
            if value is not None:
                return float(value)
        raise ValueError(f"{self.hardware_id} has no dense tensor rate at {precision} or wider")

    @property
    def hbm_bandwidth_bytes_per_s(self) -> float:
        """HBM bandwidth [bytes/s]."""
        from tokenomics.units import BYTES_PER_TB

        return self.hbm_bandwidth_tb_per_s * BYTES_PER_TB

    @property
    def hbm_capacity_bytes(self) -> float:
        """HBM capacity [bytes]."""
        from tokenomics.units import BYTES_PER_GB

        return self.hbm_capacity_gb * BYTES_PER_GB


class Model(CatalogEntry):
    """A model architecture: parameters, layers, attention and experts.

    Attributes
    ----------
    model_id, name, developer : str
        Catalog id (e.g. ``"deepseek-r1"``), display name, developer.
    attention_type : str
        ``"mha"``, ``"gqa"``, ``"mla"`` or ``"csa"`` (DeepSeek-V4 compressed sparse + heavily
        compressed attention, one shared K=V entry per KV head).
    native_weight_precision : str
        Precision of the released weights (e.g. ``"fp8"``, ``"bf16"``, ``"mxfp4"``).
    open_weights : bool
        Whether weights are downloadable.
    license : str
        Weights license.
    first_party_provider : str
        Provider whose price list is the default in :func:`tokenomics.price`.
    total_params_b, active_params_b : float
        Total and per-token active parameters [billions].
    layers, dense_layers, moe_layers : int
        Transformer layers; dense and MoE counts (``moe_layers`` 0 for dense models).
    hidden_size, attention_heads, kv_heads, head_dim, v_head_dim : int
        Widths; ``kv_heads`` is the GQA group count (None for MLA).
    mla_kv_lora_rank, mla_q_lora_rank, mla_qk_rope_head_dim, mla_qk_nope_head_dim : int or None
        MLA latent and RoPE dimensions (``mla_q_lora_rank`` is also the low-rank query of
        ``csa`` attention).
    o_lora_rank, o_groups : int or None
        Grouped low-rank attention output of ``csa`` attention: ``o_groups`` blocks of
        ``heads x head_dim / o_groups -> o_lora_rank``, then ``o_groups x o_lora_rank -> hidden``.
    sliding_window_layers, sliding_window_tokens : int or None
        Layers with sliding-window attention and the window length [tokens].
    routed_experts, active_experts, shared_experts : int or None
        MoE experts per layer: routed, routed active per token, always-on shared.
    expert_ffn_size, dense_ffn_size : int or None
        FFN intermediate widths of one expert and of dense layers.
    vocab_size : int
        Vocabulary size [tokens].
    max_context_tokens : int
        Maximum context length [tokens].
    linear_attention_layers : int or None
        Layers with linear attention (Gated DeltaNet, Kimi Delta Attention): a fixed-size state,
        no per-token KV cache.
    linear_key_heads, linear_value_heads : int or None
        Query/key and value heads of one linear-attention layer; each value head keeps a
        ``linear_key_head_dim x linear_value_head_dim`` recurrent state per sequence.
    linear_key_head_dim, linear_value_head_dim : int or None
        Key and value head widths of the linear-attention layers.
    linear_conv_kernel : int or None
        Width of the short causal convolution over q, k and v [tokens]: a state of
        ``linear_conv_kernel - 1`` tokens per sequence.
    csa_layers, hca_layers : int or None
        DeepSeek-V4 compressed-attention layers (``attention_type == "csa"``): one KV row per
        ``csa_compress_ratio`` / ``hca_compress_ratio`` tokens, plus the sliding window.
    csa_compress_ratio, hca_compress_ratio : int or None
        Tokens pooled into one KV row [tokens].
    engram_layers : int or None
        Layers with an Engram conditional-memory lookup.
    engram_params_b : float or None
        Parameters in Engram tables [billions].
    """

    _vocabulary_table: ClassVar[str] = "model"

    model_id: str
    name: str
    developer: str
    attention_type: str
    native_weight_precision: str
    open_weights: bool
    license: str = ""
    first_party_provider: str = ""
    aliases: tuple[str, ...] = ()
    total_params_b: float
    active_params_b: float
    layers: int
    dense_layers: int | None = None
    moe_layers: int | None = None
    hidden_size: int
    attention_heads: int
    kv_heads: int | None = None
    head_dim: int
    v_head_dim: int | None = None
    mla_kv_lora_rank: int | None = None
    mla_q_lora_rank: int | None = None
    mla_qk_rope_head_dim: int | None = None
    mla_qk_nope_head_dim: int | None = None
    o_lora_rank: int | None = None
    o_groups: int | None = None
    sliding_window_layers: int | None = None
    sliding_window_tokens: int | None = None
    routed_experts: int | None = None
    active_experts: int | None = None
    shared_experts: int | None = None
    expert_ffn_size: int | None = None
    dense_ffn_size: int | None = None
    vocab_size: int
    max_context_tokens: int
    linear_attention_layers: int | None = None
    linear_key_heads: int | None = None
    linear_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    linear_conv_kernel: int | None = None
    csa_layers: int | None = None
    csa_compress_ratio: int | None = None
    hca_layers: int | None = None
    hca_compress_ratio: int | None = None
    engram_layers: int | None = None
    engram_params_b: float | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Model:
        """Refuse counts that disagree (an edit of one, ``with_values(layers=...)``, needs the others)."""
        problems = []
        if self.dense_layers is not None and self.moe_layers is not None \
                and self.dense_layers + self.moe_layers != self.layers:
            problems.append(f"dense_layers={self.dense_layers} + moe_layers={self.moe_layers} must equal "
                            f"layers={self.layers}")
        for name in ("dense_layers", "moe_layers", "sliding_window_layers", "linear_attention_layers",
                     "csa_layers", "hca_layers", "engram_layers"):
            value = getattr(self, name)
            if value is not None and value > self.layers:
                problems.append(f"{name}={value} exceeds layers={self.layers}")
        if self.active_params_b > self.total_params_b:
            problems.append(f"active_params_b={self.active_params_b:g} exceeds total_params_b={self.total_params_b:g}")
        if self.routed_experts and self.active_experts and self.active_experts > self.routed_experts:
            problems.append(f"active_experts={self.active_experts} exceeds routed_experts={self.routed_experts}")
        if self.kv_heads and self.kv_heads > self.attention_heads:
            problems.append(f"kv_heads={self.kv_heads} exceeds attention_heads={self.attention_heads}")
        if problems:
            raise ValueError(f"model {self.model_id!r}: " + "; ".join(problems)
                             + " (give the related fields together, e.g. with_values(layers=..., dense_layers=...))")
        return self

    @property
    def is_moe(self) -> bool:
        """True for mixture-of-experts models."""
        return bool(self.routed_experts)


class ApiPrice(CatalogEntry):
    """A provider's list price for a model, one dated snapshot [USD per million tokens].

    Attributes
    ----------
    model_id, provider : str
        Catalog model id and provider name.
    tier : str
        Price tier: ``standard``, ``batch``, ``flex``, ``priority``, ``fast`` or ``off-peak``
        (see :data:`tokenomics.catalog.PRICE_TIERS`).
    as_of : datetime.date
        Date of the price snapshot.
    input_usd_per_mtok : float
        Uncached (cache-miss) input tokens.
    cached_input_usd_per_mtok : float or None
        Cache-hit input tokens; None where the provider publishes no cached price.
    output_usd_per_mtok : float
        Output tokens.
    cache_write_usd_per_mtok : float or None
        Writing to the prompt cache, where charged separately.
    """

    _vocabulary_table: ClassVar[str] = "price"

    model_id: str
    provider: str
    tier: str = "standard"
    as_of: dt.date
    input_usd_per_mtok: float
    cached_input_usd_per_mtok: float | None = None
    output_usd_per_mtok: float
    cache_write_usd_per_mtok: float | None = None


class TcoInputs(CatalogEntry):
    """Capital inputs of TCO for one system, per accelerator.

    Attributes
    ----------
    hardware_id : str
        Catalog hardware id.
    capex_usd_per_accelerator : float
        All-in capex per accelerator: the accelerator plus its share of server/rack, scale-up and
        scale-out network, storage and installation [USD].
    economic_life_years : float or None
        System-specific economic life [years]; None uses the TCO profile's.
    residual_value_frac : float
        Resale value at end of life as a fraction of capex.
    host_dram_usd_per_gb : float or None
        Price of the system's host DRAM [USD/GB]; the base capacity is inside the capex, extra
        capacity (e.g. for KV offload) is added at this price.
    """

    _vocabulary_table: ClassVar[str] = "tco_system"

    hardware_id: str
    capex_usd_per_accelerator: float
    economic_life_years: float | None = None
    residual_value_frac: float = 0.0
    host_dram_usd_per_gb: float | None = None


class TcoProfile(CatalogEntry):
    """Datacenter and financing inputs of a kind of operator.

    Attributes
    ----------
    profile_id, name, description : str
        Id (``hyperscaler``, ``neocloud``, ``rental``), display name, description.
    electricity_usd_per_kwh : float
        Electricity price [USD/kWh].
    pue : float
        Power usage effectiveness (facility power / IT power), >= 1.
    colocation_usd_per_kw_month : float
        Colocation / datacenter shell rent per kW of critical IT load per month [USD/kW/month].
    cost_of_capital_frac : float
        Annual cost of capital (discount rate) [1/year].
    maintenance_frac_per_year : float
        Annual maintenance and support as a fraction of capex [1/year].
    other_opex_frac_per_year : float
        Other annual opex (staff, software, insurance) as a fraction of capex [1/year].
    economic_life_years : float
        Default economic life [years].
    rental_markup_frac : float
        Markup of a rental price over the owner's cost (0 for owners).
    """

    _vocabulary_table: ClassVar[str] = "tco_profile"

    profile_id: str
    name: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    electricity_usd_per_kwh: float
    pue: float
    colocation_usd_per_kw_month: float
    cost_of_capital_frac: float
    maintenance_frac_per_year: float
    other_opex_frac_per_year: float = 0.0
    economic_life_years: float
    rental_markup_frac: float = 0.0


class PublishedTco(CatalogEntry):
    """A published all-in $/GPU-hour TCO figure.

    Attributes
    ----------
    hardware_id : str
        Catalog hardware id.
    vintage : str
        Which published set (``"2025-08"``, ``"2026-07"``, ``"2026-09"``).
    tier : str
        ``hyperscaler`` (owner, 4-year life), ``neocloud`` (owner), ``rental`` (3-year contract),
        ``internal`` (TPU v7 at Google's internal cost basis).
    usd_per_gpu_hour : float
        All-in cost per accelerator-hour [USD/h].
    facility_power_kw_per_accelerator : float or None
        All-in facility power per accelerator published with the same set (stored under tier
        ``"all"``) [kW]; used for tokens per MW and profit per MW-year.
    """

    _vocabulary_table: ClassVar[str] = "published_tco"

    hardware_id: str
    vintage: str
    tier: str
    usd_per_gpu_hour: float
    facility_power_kw_per_accelerator: float | None = None

    @property
    def source(self) -> str:
        """Source of the figure."""
        return self.provenance["usd_per_gpu_hour"].source
