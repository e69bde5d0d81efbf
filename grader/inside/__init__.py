"""Code that runs inside the sandbox: the zygote, the per-run keeper and the student process.

Everything here uses only the standard library and never imports the rest of `grader`, because
it is loaded by path into the sandboxed interpreter, where only the interpreter's own libraries
(torch, numpy...) are visible.
"""
