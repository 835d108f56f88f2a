# SVM tuning explorer: the Streamlit dashboard over svmcore.
#   docker build -t svm-tuning-explorer .
#   docker run --rm -p 8501:8501 svm-tuning-explorer      # http://localhost:8501
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MPLCONFIGDIR=/tmp \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    SVMAPP_CACHE=/app/cache \
    NUMBA_CACHE_DIR=/app/numba-cache

# an unprivileged user owns nothing but its home; the code is read-only to it
RUN groupadd --system app && useradd --system --gid app --create-home --home-dir /home/app app

WORKDIR /app

# dependencies first (cached layer), installed exactly as the README says
COPY requirements.txt .
RUN pip install -r requirements.txt

# the application: engine (with its bundled data sets), app shell, pages, Streamlit config
COPY svmcore/ svmcore/
COPY svmapp/ svmapp/
COPY app_pages/ app_pages/
COPY app.py ./
COPY .streamlit/ .streamlit/

# compile the path's event loop and its kernels (numba, 45-51 s on two Zen 3 cores) into its
# cache, which numba must be able to write to: the one folder the app user owns besides its home
RUN python -c "from svmcore.families.svm.solvers.path import compile_event_loop; compile_event_loop()" \
    && chown -R app:app /app/numba-cache

# precompute the default view into the (read-only) disk cache: the first visitor does not wait
RUN python -m svmapp.warm || echo "warm-up skipped: the first visitor computes the default view"

USER app

EXPOSE 8501

# Streamlit answers "ok" on /_stcore/health once it serves; the slim image has no curl
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read().strip() == b'ok' else 1)"

# .streamlit/config.toml: XSRF protection on, 20 MB upload limit, usage statistics off, headless,
# no file watcher and no forced gc after each script run (a served app; bench/first_view.py)
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
