"""A fleet in words (warehouse/questions/fleet_words.py), on hand-worked cases of the catalog's platforms."""

import pytest

from warehouse.questions.fleet_words import fleet_words, gpu_words, system_words


@pytest.mark.parametrize(("catalog_name", "said"), [
    ("HGX H100 8-GPU (DGX H100 class)", "HGX H100 server"),
    ("GB200 NVL72 rack (72 GPUs, 36 Grace)", "GB200 NVL72 rack"),
    ("Intel Gaudi 3 8-accelerator server (HLS-3 class)", "Intel Gaudi 3 server"),
    ("Workstation: 4x RTX PRO 6000 Blackwell Workstation Edition (PCIe Gen5, no NVLink)",
     "RTX PRO 6000 Blackwell workstation"),
    ("Server: 8x L40S (PCIe Gen4, no NVLink)", "L40S server"),
    ("TPU v5p slice on one ICI 3D torus (up to 6,144 chips, 4 chips per host; not sold)", "TPU v5p slice"),
    ("TPU v6e (Trillium) pod of 256 chips on an ICI 2D torus, pods joined over the network", "TPU v6e pod"),
])
def test_a_system_is_named_short_and_says_what_it_is(catalog_name, said):
    assert system_words(catalog_name) == said


@pytest.mark.parametrize(("args", "said"), [
    # whole systems: 8 GPUs on 8-GPU servers is 1 server, 16 is 2
    ((8, "H100 SXM", "HGX H100 server", 8, 8), "8x H100 SXM (1 HGX H100 server)"),
    ((16, "B200", "HGX B200 server", 8, 8, 8), "16x B200 (2 HGX B200 servers)"),
    # a rack-scale system names its accelerator already: 72 GPUs are 1 rack, 576 are 576 / 72 = 8
    ((72, "GB200", "GB200 NVL72 rack", 72, 72), "72 GPUs (1 GB200 NVL72 rack)"),
    ((576, "GB300", "GB300 NVL72 rack", 72, 72, 72), "576 GPUs (8 GB300 NVL72 racks)"),
    # rented by the 4-GPU tray: 16 / 4 = 4 trays, all in one rack; 80 GPUs need ceil(80 / 72) = 2 racks
    ((16, "GB200", "GB200 NVL72 rack", 72, 72, 4), "16 GPUs (4 trays of one GB200 NVL72 rack)"),
    ((80, "GB200", "GB200 NVL72 rack", 72, 72, 4), "80 GPUs (20 trays of GB200 NVL72 racks)"),
    # part of one server; 12 GPUs of 4-GPU instances are 3 instances over 8-GPU servers
    ((2, "B200", "HGX B200 server", 8, 8, 2), "2x B200 (2 of 8 GPUs of one HGX B200 server)"),
    ((12, "H100 SXM", "HGX H100 server", 8, 8, 4), "12x H100 SXM (3 4-GPU instances of HGX H100 servers)"),
    # no rented unit known: 1024 GPUs on 72-GPU racks take ceil(1024 / 72) = 15 racks
    ((1024, "GB200", "GB200 NVL72 rack", 72, 72), "1024 GPUs (on 15 GB200 NVL72 racks)"),
    # scale-up narrower than the server: NVLink bridge pairs
    ((8, "H100 PCIe", "H100 PCIe server", 8, 2), "8x H100 PCIe (1 H100 PCIe server; scale-up in groups of 2)"),
])
def test_a_fleet_in_words(args, said):
    assert fleet_words(*args) == said


def test_an_accelerator_is_its_id_with_spaces():
    assert [gpu_words(g) for g in ("H100-SXM", "GB200", "RTX-PRO-6000-WS")] == ["H100 SXM", "GB200", "RTX PRO 6000 WS"]
