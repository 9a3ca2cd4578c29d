"""simcore from Python: load SDF worlds with their plugins, step them, read their sensors
(images, depth images, laser scans and point clouds as NumPy arrays without copies), publish
and call services, change entities, and run many worlds across threads.

>>> import simcore
>>> with simcore.Simulation("worlds/imu_drop.sdf") as sim:
...     sim.step(100)
...     imu = sim.read("/world/imu_drop/model/box/link/body/sensor/imu/imu")

Every class and function is documented in ``_simcore.pyi``; docs/python.md walks through
them. ``simcore.gym`` (needs gymnasium) has the gymnasium environments, ``simcore.batch``
runs sweeps (docs/batch.md).
"""

from ._simcore import (
    BatchError,
    ControlError,
    EntityError,
    EntityNotFound,
    Message,
    MessageError,
    OverrideError,
    PluginError,
    ServiceError,
    SimError,
    Simulation,
    SpawnError,
    Subscription,
    WorldError,
    __version__,
    check,
    step_all,
)

__all__ = [
    "BatchError",
    "ControlError",
    "EntityError",
    "EntityNotFound",
    "Message",
    "MessageError",
    "OverrideError",
    "PluginError",
    "ServiceError",
    "SimError",
    "Simulation",
    "SpawnError",
    "Subscription",
    "WorldError",
    "__version__",
    "check",
    "step_all",
]
