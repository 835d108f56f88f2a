"""COSSO SVM: variable selection for the SVM in smoothing-spline ANOVA (Zhang 2006).

``kernels`` (SS-ANOVA kernels, eq 2.4), ``lp`` (the θ step, eq 4.3), ``fit`` (the alternating
algorithm, §4.1), ``tune`` (λ0 and M, §4.2), ``family`` (``FAMILY``, ``fit_cosso``), ``cli``.
See ``docs/cosso.md``.
"""
