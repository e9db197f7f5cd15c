"""The shared noise base: noise plans, exact samplers, the Laplace facts and label histograms.

Below every mechanism family: each family's release draws its noise from a plan made here, and
nothing here knows a family.
"""
