"""An example lab plugin package (see README.md): importing ``lab_plugin_example.controllers``
registers the ``standing_wave`` controller."""
