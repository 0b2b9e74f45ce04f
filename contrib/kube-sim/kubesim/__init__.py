"""kube-sim: an emulator of the Kubernetes API with Run:ai's objects.

Test infrastructure for the runai C client and the backend of `make demo`.
"""
