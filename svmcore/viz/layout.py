"""Layout pieces shared by the family figures (pure Plotly settings, no Streamlit)."""
from __future__ import annotations

#: a horizontal legend at the bottom of the figure, below the x-axis title and clear of a colour
#: bar at the right; the figure's bottom margin (``MARGIN_BELOW``) holds it
LEGEND_BELOW = dict(orientation="h", x=0.0, xanchor="left", yref="container", y=0.0,
                    yanchor="bottom")
MARGIN_BELOW = dict(b=110)
