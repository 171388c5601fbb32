"""The benchmark chart (``mcpstream bench --plot FILE.png``), drawn with matplotlib (the
``plot`` extra)."""

from __future__ import annotations

from pathlib import Path

from .measure import Implementation, Measurement

__all__ = ["PlotUnavailableError", "check_plot_available", "plot"]


class PlotUnavailableError(RuntimeError):
    """matplotlib is not installed."""


def check_plot_available() -> None:
    """Raise ``PlotUnavailableError`` when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailableError(
            "--plot needs matplotlib: pip install 'mcpstream[plot]'"
        ) from None


def plot(
    results: list[Measurement], implementations: list[Implementation], path: Path, title: str
) -> None:
    """Save a grouped bar chart of MB/s per workload and implementation to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(dict.fromkeys(result.workload for result in results))
    by_key = {(result.workload, result.implementation): result.mb_per_s for result in results}
    width = 0.8 / len(implementations)
    figure, axes = plt.subplots(figsize=(9, 4.8), dpi=120)
    for index, implementation in enumerate(implementations):
        positions = [
            w + (index - (len(implementations) - 1) / 2) * width for w in range(len(workloads))
        ]
        values = [by_key.get((workload, implementation.key), 0.0) for workload in workloads]
        bars = axes.bar(positions, values, width, label=implementation.label)
        axes.bar_label(bars, labels=[f"{v:,.0f}" for v in values], fontsize=7, padding=2)
    axes.set_xticks(range(len(workloads)), workloads)
    axes.set_yscale("log")
    axes.set_ylabel("MB/s, log scale (higher is better)")
    axes.set_title(title)
    axes.legend()
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
