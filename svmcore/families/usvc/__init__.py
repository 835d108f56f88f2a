"""Unbiased support vector classifier (USVC) by iterated reweighted least squares.

Navia-Vázquez, Pérez-Cruz, Artés-Rodríguez & Figueiras-Vidal (2004), "Advantages of unbiased
support vector classifiers for data mining applications", J. VLSI Signal Processing 37:223–235.
See ``docs/usvc.md``.
"""
from .losses import hinge_alpha, theta_s, theta_s_prime, usvc_alpha
from .machines import IRWLSSettings, KernelMachine, LinearMachine, fit_kernel, fit_linear

__all__ = ["theta_s", "theta_s_prime", "hinge_alpha", "usvc_alpha", "IRWLSSettings",
           "LinearMachine", "KernelMachine", "fit_linear", "fit_kernel"]
