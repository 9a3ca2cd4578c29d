"""Type stubs of simcore's extension module (the engine, in Rust). See docs/python.md."""

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np

__version__: str

# Errors. Every error simcore raises is a SimError; a Rust panic never reaches Python (it
# becomes a SimError naming the internal error).

class SimError(Exception):
    """The base of every error simcore raises."""

class WorldError(SimError):
    """A world that cannot be read or built. The message is simcore's report: the error,
    ``--> file:line:col``, the source line with a caret, the element and a hint (``<inline>``
    for a world given as text), every problem of the load."""

class OverrideError(WorldError):
    """An override that cannot be applied: the message names the override's path, the
    step that matched nothing (or several elements) and the candidates there."""

class PluginError(SimError):
    """Sensors or plugins no library on the search path serves (under ``policy="strict"``)
    or that refuse their configuration: every problem, one per line."""

class ControlError(SimError):
    """A request the run's state does not allow: stepping, resetting or changing entities
    while ``play()`` steps in the background, any call on a closed simulation, or one the
    engine's run control refuses (quitting, busy with granted steps)."""

class SpawnError(SimError):
    """A model that cannot be created: the full diagnostic (SDF errors with file, line and
    source; plugin problems; a name taken)."""

class ServiceError(SimError):
    """A service call that failed: no such service (the message lists those offered), a
    disabled plugin, the plugin's error, or no reply within the timeout."""

class BatchError(SimError):
    """A sweep file or batch option that is refused (the file and line), or a batch that could
    not run."""

class EntityError(SimError):
    """An entity request the engine refused: a value that is not finite or out of range (the
    message names the part: pose, twist), a velocity for a static model, a change the physics
    refused."""

class EntityNotFound(EntityError, KeyError):
    """No model of that name (the message lists the models)."""

class MessageError(SimError, ValueError):
    """A dict that is not a message simcore can publish (the message names the field)."""

class Message:
    """A message read from a topic.

    The header is in attributes; the payload's fields are read by key, with the names of
    ``simcore run --echo``'s JSON (``msg["linear_acceleration"]["z"]``), numbers as floats
    (non-finite ones too) and nested objects as dicts. Images, depth images, laser scans and
    point clouds also carry their data as read-only NumPy arrays over the engine's memory
    (no copy: ``arr.flags.owndata`` is False, and two reads of one message share memory);
    the arrays stay valid and unchanged after later steps.
    """

    topic: str
    """The topic it was published on."""
    type: str
    """The message type: ``IMU``, ``Image``, ``LaserScan``, ``PointCloudPacked``,
    ``Odometry``, ``Twist``, ``Pose_V``... (as ``--echo`` prints it)."""
    stamp: float
    """The header's stamp, seconds of sim time."""
    stamp_ns: int
    """The header's stamp, nanoseconds of sim time."""
    frame_id: str
    """The header's frame."""
    seq: int
    """The header's sequence number (per sensor and topic, from 0)."""
    @property
    def array(self) -> np.ndarray | None:
        """The bulk data, or None for other types:

        - an image: ``(h, w)`` or ``(h, w, channels)`` of uint8 (L8, RGB8, BGR8, RGBA8,
          BGRA8), uint16 (L16) or float32 (R_FLOAT32 depth images, RGB float); rows keep the
          message's ``step`` as their stride; other formats as raw bytes ``(h, step)``;
        - a laser scan: the ranges, float64, ``(count,)`` or ``(vertical_count, count)``
          (also ``msg["ranges"]`` and ``msg["intensities"]``, flat);
        - a point cloud: a structured array of its fields (``cloud.array["x"]``), ``(width,)``
          or ``(height, width)``.
        """
    def __getitem__(self, key: str) -> Any: ...
    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default``."""
    def __contains__(self, key: str) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> list[str]:
        """The payload's field names."""
    def items(self) -> list[tuple[str, Any]]:
        """The payload's fields."""
    def to_dict(self) -> dict[str, Any]:
        """``topic``, ``type``, ``stamp``, ``frame_id``, ``seq`` and the fields in one dict."""

class MessageBuffer:
    """The base object of a message's NumPy arrays: it keeps the engine's message alive."""

class Subscription:
    """A queue of one topic's messages (``Simulation.subscribe``)."""

    topic: str
    """The topic."""
    dropped: int
    """Messages lost because more than ``capacity`` waited."""
    def drain(self) -> list[Message]:
        """The messages published since the last call (or since subscribing), oldest first."""

_Vec3 = tuple[float, float, float] | Sequence[float]
_Quat = tuple[float, float, float, float] | Sequence[float]

class Simulation:
    """A world loaded with its plugins as ``simcore run`` loads it, stepped from Python.

    Args:
        world: a world file (``str`` or ``os.PathLike``), or SDF text (a ``str`` starting
            with ``<``).
        seed: the run seed every noise stream derives from.
        threads: worker threads for the sensor updates of this simulation (1: on the
            calling thread).
        plugin_path: directories searched for plugin libraries first (one or a list), then
            those of ``SIMCORE_PLUGIN_PATH``, as ``simcore run --plugin-path``.
        overrides: ``{sdf_path: value}`` written into the world's SDF text before it is read
            (see docs/python.md, "Overrides"): ``{"world/model[box]/pose": (0, 0, 5, 0, 0,
            0), "world/model[ground]/link[base]/collision[plane]/surface/friction/ode/mu":
            0.2}``. A path goes on into an included model by its name in the world
            (``"world/model[rover]/link[chassis]/inertial/mass"``) or through its include
            (``"world/include[rover]/model/..."``), for that include alone. Values: strings
            as they are, numbers as Python prints them, booleans as ``true``/``false``,
            sequences joined by spaces.
        policy: ``"gazebo"`` (sensors and plugins no library serves are skipped, see
            ``warnings``) or ``"strict"`` (they are a ``PluginError``).

    Raises:
        WorldError: the world does not read or cannot be built (``file:line:col`` report).
        OverrideError: an override does not apply.
        PluginError: plugins cannot be served or created.

    Every topic's latest message is kept from the first step on (``read``). Several
    simulations in one process are independent. ``with Simulation(...) as sim:`` closes it
    at the end.
    """

    def __init__(
        self,
        world: str | os.PathLike[str],
        *,
        seed: int = 0,
        threads: int = 1,
        plugin_path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        overrides: Mapping[str, Any] | None = None,
        policy: Literal["gazebo", "strict"] = "gazebo",
    ) -> None: ...
    def step(self, n: int = 1) -> None:
        """Takes ``n`` physics steps (the GIL released meanwhile: other Python threads run).

        Raises ControlError while playing."""
    @property
    def time(self) -> float:
        """Sim time, seconds."""
    @property
    def time_ns(self) -> int:
        """Sim time, nanoseconds."""
    @property
    def iteration(self) -> int:
        """Steps taken since loading or the last reset."""
    @property
    def step_size(self) -> float:
        """The physics step, seconds."""
    @property
    def world_name(self) -> str:
        """The world's name."""
    @property
    def seed(self) -> int:
        """The run seed (the last ``reset(seed=...)``'s)."""
    def play(self, rtf: float = 1.0) -> None:
        """Steps on a background thread at ``rtf`` times real time (0: as fast as possible)
        until ``pause()``. ``read``, ``publish`` and the properties work meanwhile."""
    def pause(self) -> None:
        """Stops ``play()`` after the step under way (nothing when paused)."""
    @property
    def paused(self) -> bool:
        """Whether no background thread steps the simulation."""
    @property
    def state(self) -> Literal["paused", "playing", "stopped", "quitting"]:
        """The engine's run state: "paused" (stepped when asked), "playing" (``play()``)."""
    def reset(self, *, spawned_only: bool = False, seed: int | None = None) -> None:
        """Starts again from the world as loaded, as if loaded anew: sim time 0, every pose
        and velocity as loaded, spawned models gone, every sensor and plugin created again
        (with ``seed``: under that run seed, kept for later resets). The latest messages are
        forgotten; subscriptions stay. With ``spawned_only``: only removes the models spawned
        since loading (time and the rest go on; a ``seed`` with it is a ValueError).

        Raises ControlError while playing."""
    def close(self) -> None:
        """Stops playing and frees the engine; later calls raise ControlError."""
    def __enter__(self) -> Simulation: ...
    def __exit__(self, *args: object) -> bool: ...
    def topics(self) -> list[str]:
        """The world's topics: its sensors' and systems', and any published on."""
    def services(self) -> list[str]:
        """The services its plugins offer (and each sensor's ``set_rate``)."""
    def read(self, topic: str) -> Message | None:
        """The latest message on ``topic`` since loading (or the last reset), or None."""
    def subscribe(self, topic: str, capacity: int = 1024) -> Subscription:
        """A queue of the messages on ``topic`` from now on (``drain()`` returns those since
        its last call; beyond ``capacity`` the oldest are dropped and counted)."""
    def publish(self, topic: str, msg: Mapping[str, Any]) -> None:
        """Publishes a message given as ``simcore run --pub`` takes it, e.g. ``{"type":
        "Twist", "linear": {"x": 0.5}, "angular": {"z": 0.2}}`` (types: Empty, Boolean,
        Double, Int64, StringMsg, Vector3d, Twist, Pose, Pose_V, EntityFactory, Custom),
        stamped with the current sim time. Plugins read it in the next step.

        Raises MessageError naming a bad field."""
    def call(
        self, service: str, request: Mapping[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Calls a service with a request written as for ``publish``; returns the reply's
        fields with its ``type``. Commands the plugin queues apply at once.

        Raises ServiceError."""
    @property
    def failures(self) -> list[dict[str, Any]]:
        """Plugins disabled while running: ``time``, ``subject``, ``where``, ``error``."""
    @property
    def warnings(self) -> list[str]:
        """What loading noted: what no library serves (skipped), plugin notices, refused
        libraries."""
    def get_state(self, model: str) -> dict[str, Any]:
        """A model's state (its scoped name, ``outer::inner`` for a nested one), or a link's
        (``model::link``): ``pose``
        (x, y, z), ``orientation`` (x, y, z, w), ``linear_velocity``, ``angular_velocity``,
        ``linear_acceleration``, ``angular_acceleration`` (world frame, tuples) and ``time``
        (the sim time it was read at).

        Raises EntityNotFound."""
    def set_state(
        self,
        model: str,
        *,
        pose: _Vec3 | None = None,
        orientation: _Quat | None = None,
        linear_velocity: _Vec3 | None = None,
        angular_velocity: _Vec3 | None = None,
    ) -> None:
        """Teleports a model and sets its velocities (those given; the rest stay). Every part is
        checked before anything is set.

        Raises EntityNotFound, or EntityError for a value out of range or a velocity given to
        a static model."""
    def spawn(
        self,
        sdf: str,
        *,
        name: str | None = None,
        pose: _Vec3 | None = None,
        orientation: _Quat | None = None,
        allow_renaming: bool = False,
    ) -> str:
        """Creates a model from SDF text (a ``<model>``, or an ``<sdf>`` holding one) or a
        model file name (found as an ``<include>`` would be), with its sensors and plugins;
        returns its name.

        Raises SpawnError."""
    def delete(self, model: str) -> None:
        """Removes a model with its sensors and plugins.

        Raises EntityNotFound."""
    def models(
        self,
        *,
        near: tuple[float, float, float] | None = None,
        radius: float | None = None,
        between: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None,
    ) -> list[str]:
        """The scoped names of every model, nested ones included; with ``near`` and ``radius``,
        those whose collision box reaches within ``radius`` of the point ``near``; with
        ``between``, those whose collision box overlaps the box between two corners (a model
        without collisions is its origin).

        Raises ValueError for a region that is not one."""

def step_all(sims: Sequence[Simulation], steps: int = 1, threads: int = 1) -> None:
    """Steps every simulation ``steps`` times on up to ``threads`` threads (the GIL released).
    Each steps as it would alone: the results do not depend on ``threads``."""

def check(world: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Checks a world file (or SDF text) as ``simcore check`` does, without running it: every
    problem as a dict with ``file``, ``line``, ``column``, ``severity`` (``"error"`` or
    ``"warning"``), ``message``, ``element``, ``hint`` and ``report`` (the rendered text).
    An empty list: valid."""

def run_batch(
    sweep: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    jobs: int | None = None,
    executor: str = "local",
    address: str = "auto",
    python: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Runs a sweep file (see ``simcore.batch.run``); the metrics of the finished runs."""

def batch_work(runs: str | os.PathLike[str], attempt: int) -> None:
    """One run of a batch, read as JSON on stdin, written under ``runs`` (the worker of
    ``python -m simcore._worker``)."""
