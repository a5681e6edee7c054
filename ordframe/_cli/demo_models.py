"""The demo's models as scikit-learn estimators (``clone``-able, ``classes_``, fitted attributes ending in ``_``).

Both read the class order from ``np.unique(y)``, scikit-learn's ``classes_``, so ``y`` must sort in class
order: the demo gives them class codes. Imported when the demo trains, since it imports scikit-learn.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, check_X_y


class _OnClassIndex(ClassifierMixin, BaseEstimator):
    """What both models share: checked input, ``classes_`` and the index of every label in them."""

    def _fit_input(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        X, y = check_X_y(X, y)
        check_classification_targets(y)
        self.classes_, index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes in y, got 1 class: {self.classes_[0]!r}")
        self.n_features_in_ = X.shape[1]
        return X, index

    def _predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} "
                "features as input"
            )
        return X


class FrankHall(_OnClassIndex):
    """Frank & Hall's (2001) ordinal decomposition: K - 1 binary models of P(y > k) give the class probabilities.

    P(y = k) = P(y > k - 1) - P(y > k) (Cardoso & Sousa 2011, Sec. 4.4). The binary models are fitted apart,
    so a difference can be negative: it is set to 0 and the row renormalised, which keeps its most probable
    class.

    Parameters
    ----------
    estimator : classifier, optional
        The binary model with ``predict_proba`` (default ``LogisticRegression()``), cloned for every threshold;
        the fitted ones in ``estimators_``.
    """

    def __init__(self, estimator: BaseEstimator | None = None) -> None:
        self.estimator = estimator

    def fit(self, X, y) -> FrankHall:
        X, index = self._fit_input(X, y)
        binary = LogisticRegression() if self.estimator is None else self.estimator
        self.estimators_ = [clone(binary).fit(X, (index > k).astype(int)) for k in range(len(self.classes_) - 1)]
        return self

    def predict_proba(self, X) -> np.ndarray:
        X = self._predict_input(X)
        above = np.column_stack([model.predict_proba(X)[:, 1] for model in self.estimators_])
        proba = np.column_stack([1 - above[:, 0], above[:, :-1] - above[:, 1:], above[:, -1]]).clip(min=0)
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[proba.argmax(axis=1)]


class RoundedRidge(_OnClassIndex):
    """A ridge regression on the class index (standardised features), rounded and clipped to the classes.

    Parameters
    ----------
    alpha : float
        The ridge penalty; the fitted pipeline in ``regressor_``.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X, y) -> RoundedRidge:
        X, index = self._fit_input(X, y)
        self.regressor_: Pipeline = make_pipeline(StandardScaler(), Ridge(alpha=self.alpha)).fit(X, index)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # on the class index: scikit-learn's checks have unordered classes
        return tags

    def predict(self, X) -> np.ndarray:
        X = self._predict_input(X)
        index = np.rint(self.regressor_.predict(X))
        return self.classes_[index.clip(0, len(self.classes_) - 1).astype(int)]


def models() -> dict[str, BaseEstimator]:
    """The demo's three models, unfitted: class order ignored, Frank & Hall's, and a rounded regression."""
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    return {"logistic": logistic, "frank_hall": FrankHall(logistic), "rounded_ridge": RoundedRidge()}
