//! The `Py_3_*` cfgs of the Python the extension is built for (`#[cfg(Py_3_14)]` and so on), from
//! the interpreter configuration PyO3 resolves (the one maturin passes for each wheel): code that
//! reads CPython's `str` layout differs by version (rust/pystrview.rs).
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
