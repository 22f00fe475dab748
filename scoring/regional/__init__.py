"""Helpers shared by the regional rule sets with a wild tile (Xiamen 金, Zhenjiang 百搭)."""
