import os

# the app's disk cache of finished sweeps would let these tests skip the sweeps they test
os.environ["SVMAPP_CACHE"] = "off"
