"""Penalized-likelihood soft classification (the ``logistic`` family).

``newton`` (solver), ``criteria`` (OBS, GACV, ranGACV, CKL, CV deviance), ``family`` (the grid
family), ``cli`` (command-line pieces). See ``docs/soft.md``.
"""
