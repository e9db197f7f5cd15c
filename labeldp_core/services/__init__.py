"""What serves the app and the command line, above every engine.

Warm-up of the demo set (``warm``, ``warm_together``), the papers' figures beside ours
(``reproduce``, ``published``), the price-of-privacy screen (``price_of_privacy``), every
registered mechanism's release audit (``release_audits``), standalone HTML reports
(``reports``) and moving, counting and pruning a cache (``cache_transfer``, ``cache_stats``).
Nothing below this folder imports it.
"""
