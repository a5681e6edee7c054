# The public names of ordframe, each imported on first use by the package's __getattr__, and read by type checkers.
from . import datasets as datasets
from . import metrics as metrics
from . import plot as plot
from . import simulate as simulate
from . import sklearn as sklearn
from ._accessors.accumulator import Accumulator as Accumulator
from ._core.messages import BaselineWarning as BaselineWarning
from ._core.messages import DroppedRowsWarning as DroppedRowsWarning
from ._core.messages import LabelWarning as LabelWarning
from ._core.options import set_options as set_options
from ._diagnostics.decisions import decide as decide
from ._diagnostics.oc_paths import oc_path as oc_path
from ._diagnostics.oc_paths import uoc_path as uoc_path
from ._diagnostics.report import format_report as format_report
from ._diagnostics.report import report_cube as report_cube
from ._diagnostics.worst import worst as worst
from ._inference.agreement import krippendorff_alpha as krippendorff_alpha
from ._inference.bayesian import bayesian_correlated_ttest as bayesian_correlated_ttest
from ._inference.bayesian import bayesian_signed_rank as bayesian_signed_rank
from ._inference.compare import compare as compare
from ._inference.friedman import friedman as friedman
from ._inference.george import george_rank as george_rank
from ._inference.intervals import DegenerateIntervalWarning as DegenerateIntervalWarning
from ._inference.intervals import ci as ci
from ._inference.results_section import methods_text as methods_text
from ._inference.results_section import results_table as results_table
from ._inference.skill import UndefinedSkillWarning as UndefinedSkillWarning
from ._inference.skill import skill as skill
from ._inference.ttest import corrected_ci as corrected_ci
from ._inference.ttest import corrected_ttest as corrected_ttest
from ._inference.wilcoxon import wilcoxon as wilcoxon
from ._page.report import report_html as report_html
from ._registry.hookspecs import hookimpl as hookimpl
from ._registry.manager import PluginError as PluginError
from ._registry.manager import PluginLoadWarning as PluginLoadWarning
from ._registry.manager import get_metric as get_metric
from ._registry.manager import list_metrics as list_metrics
from ._registry.manager import register as register
from ._registry.manager import unregister as unregister
from ._registry.metric import Metric as Metric
from ._registry.request import METRIC_SETS as METRIC_SETS
from ._resampling.cubes import bootstrap_cube as bootstrap_cube
from ._resampling.cubes import jackknife as jackknife
from .metrics.cost import george_cost as george_cost

__version__: str

def __getattr__(name: str): ...  # every registered metric as a function: ordframe.oc(y_true, y_pred)
