"""Programs with the mistakes docs/errors.md catalogs, one module per error class.

They live in real files because graph mode builds from source; the tests find the
line each error must point at by searching the source of the program, so moving
code around here does not break them.
"""
