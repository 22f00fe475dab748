"""tilecam's rules engine: pure Python, standard library only.

Chinese Official (MCR, 国标) with its rule versions, Xiamen (厦门) and Zhenjiang (镇江).
"""
