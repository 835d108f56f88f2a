"""Summary table: per criterion its grid minimizer, value, MISCLASS/BRMISCLASS there, inefficiency."""
import streamlit as st

from svmapp import ui
from svmcore.viz import views as explore

st.title("Summary: what each criterion chooses")
res = ui.require_result()
if res is None:
    st.stop()
result, loaded = res
ui.settings_badge()

tbl = explore.summary_table(result).drop(columns=["column"])
fmt = {c: "{:.4f}" for c in tbl.columns if tbl[c].dtype.kind == "f" and c not in ("log2(nλ)", "log2 σ")}
fmt.update({"log2(nλ)": "{:g}", "log2 σ": "{:g}"})
st.dataframe(tbl.style.format(fmt, na_rep="—"), hide_index=True, width="stretch")
target = "MISCLASS" if result.weights.is_standard else "BRMISCLASS"
if "misclass" in result.table.columns:
    st.markdown(
        f"**Inefficiency** (Wahba et al. 2001, §1.8) = {target} at the criterion's choice ÷ the grid minimum of "
        f"{target}; 1 is perfect. The range covers tied minimizers (XA is a count and ties often). "
        "The paper reports GACV 1.0064 and XA 1.0062–1.0094 (standard case), GACV 1.151 and "
        "BRXA 1.166 (nonstandard case) on its sample of wahba2d.")
else:
    st.markdown("The true P(A|x) is unknown for this data set, so MISCLASS and the inefficiency "
                "cannot be computed; compare the choices through the **test error** on the held-out "
                "set instead.")
st.caption("value: the criterion at its minimizer. n_sv: support vectors there. "
           "test error / test cost error: the chosen fit on the held-out set (real data only).")
ui.downloads(result, {}, prefix=loaded.train.name + "_summary")
