"""Python source to IR: the AST builder, constant folding, unrolling, If/Loop emission."""
