"""gymnasium environments over simcore worlds.

``SimcoreEnv`` is one world as a ``gymnasium.Env``: observations are the latest messages
of topics (a ``Dict`` space, one entry per name), an action is published on a topic before
the world steps ``steps_per_action`` times, and the reward, termination and truncation come
from your functions and a step limit. ``SimcoreVectorEnv`` runs ``num_envs`` independent
copies of the world in this process, stepped together across threads (the GIL released), as
a ``gymnasium.vector.VectorEnv``.

Install with the ``gym`` extra (``pip install simcore[gym]``): this module needs gymnasium.
See docs/python.md for a walk through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from . import Message, Simulation, step_all

__all__ = ["SimcoreEnv", "SimcoreVectorEnv", "twist_action", "flatten_message"]

#: An observation source: a topic (its latest message, see ``flatten_message``), a pair
#: (topic, function of the message to an array), or a function of the simulation.
Observation = str | tuple[str, Callable[[Message], np.ndarray]] | Callable[[Simulation], np.ndarray]

#: How many steps ``reset`` takes at most waiting for every observed topic's first message.
MAX_WARMUP_STEPS = 10_000


def flatten_message(msg: Message) -> np.ndarray:
    """A message as an array: its ``array`` (image, depth image, scan, point cloud) as it is,
    else every number of its fields in order (nested dicts and lists flattened, strings
    skipped) as float64. An IMU gives its orientation (when enabled), angular velocity,
    linear acceleration and their covariances; an odometry its pose and twist."""
    if msg.array is not None:
        return msg.array
    out: list[float] = []

    def walk(v: Any) -> None:
        if isinstance(v, bool):
            out.append(float(v))
        elif isinstance(v, (int, float)):
            out.append(float(v))
        elif isinstance(v, Mapping):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    for key in msg.keys():
        walk(msg[key])
    return np.asarray(out, dtype=np.float64)


def twist_action(action: Any) -> dict:
    """The default action mapping: ``[linear_x, angular_z]`` as a Twist message."""
    a = np.asarray(action, dtype=np.float64).reshape(-1)
    return {"type": "Twist", "linear": {"x": float(a[0])}, "angular": {"z": float(a[1])}}


def _box_for(sample: np.ndarray) -> spaces.Box:
    """A Box that holds arrays like ``sample`` (bounded by the dtype for integers)."""
    sample = np.asarray(sample)
    if sample.dtype.fields is not None:
        raise TypeError(
            "a point cloud's structured array is not a Box: observe it with a function, "
            "e.g. (topic, lambda m: np.stack([m.array['x'], m.array['y'], m.array['z']], -1))"
        )
    if np.issubdtype(sample.dtype, np.integer):
        info = np.iinfo(sample.dtype)
        return spaces.Box(info.min, info.max, sample.shape, sample.dtype)
    return spaces.Box(-np.inf, np.inf, sample.shape, sample.dtype)


class SimcoreEnv(gymnasium.Env):
    """A simcore world as a gymnasium environment.

    Args:
        world: a world file or SDF text (as ``simcore.Simulation`` takes it).
        observations: ``{name: source}``; a source is a topic (its latest message as
            ``flatten_message`` makes it an array), a pair ``(topic, fn(msg) -> array)``, or
            a function ``fn(sim) -> array``. The observation space is a ``Dict`` of ``Box``
            spaces whose shapes and dtypes are learned from a first reset, unless
            ``observation_space`` declares them.
        action_topic: where each action is published (None: actions are ignored, or
            ``action_to_msg`` publishes itself, see below).
        action_to_msg: ``fn(action) -> dict`` (a message as ``Simulation.publish`` takes it),
            or ``fn(action, sim) -> None`` when ``action_topic`` is None. Default: a Twist of
            ``[linear_x, angular_z]`` (``twist_action``).
        action_space: default ``Box(-1, 1, (2,))`` for the Twist mapping.
        reward_fn: ``fn(obs, sim) -> float`` (default 0).
        terminated_fn: ``fn(obs, sim) -> bool`` (default never).
        max_steps: the episode is truncated after this many actions (None: never).
        steps_per_action: physics steps per action.
        seed, threads, plugin_path, overrides, policy: as ``simcore.Simulation`` takes them;
            ``seed`` is the run seed until ``reset(seed=...)`` gives another.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        world: Any,
        *,
        observations: Mapping[str, Observation],
        action_topic: str | None = None,
        action_to_msg: Callable[..., Any] | None = None,
        action_space: spaces.Space | None = None,
        observation_space: spaces.Dict | None = None,
        reward_fn: Callable[[dict, Simulation], float] | None = None,
        terminated_fn: Callable[[dict, Simulation], bool] | None = None,
        max_steps: int | None = 1000,
        steps_per_action: int = 1,
        seed: int = 0,
        threads: int = 1,
        plugin_path: Any = None,
        overrides: Mapping[str, Any] | None = None,
        policy: str = "gazebo",
    ) -> None:
        super().__init__()
        if not observations:
            raise ValueError("observations names at least one topic or function")
        if steps_per_action < 1:
            raise ValueError("steps_per_action must be at least 1")
        self.sim = Simulation(
            world,
            seed=seed,
            threads=threads,
            plugin_path=plugin_path,
            overrides=overrides,
            policy=policy,
        )
        self._sources = dict(observations)
        self._topics = {n: s if isinstance(s, str) else s[0] for n, s in self._sources.items() if not callable(s)}
        self.action_topic = action_topic
        self.action_to_msg = action_to_msg or twist_action
        self.action_space = action_space or spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.reward_fn = reward_fn
        self.terminated_fn = terminated_fn
        self.max_steps = max_steps
        self.steps_per_action = steps_per_action
        self._steps = 0
        if observation_space is None:
            self._warm_up()
            observation_space = spaces.Dict({n: _box_for(v) for n, v in self._observe().items()})
            self.sim.reset()
        self.observation_space = observation_space

    # The parts SimcoreVectorEnv shares.

    def _warm_up(self) -> None:
        """Steps until every observed topic has a message."""
        for _ in range(MAX_WARMUP_STEPS):
            if all(self.sim.read(t) is not None for t in self._topics.values()):
                return
            self.sim.step(1)
        missing = [t for t in self._topics.values() if self.sim.read(t) is None]
        raise RuntimeError(
            f"no message on {', '.join(missing)} after {MAX_WARMUP_STEPS} steps; "
            f"the world's topics: {', '.join(self.sim.topics())}"
        )

    def _observe(self) -> dict[str, np.ndarray]:
        obs = {}
        for name, source in self._sources.items():
            if callable(source):
                value = source(self.sim)
            else:
                topic, fn = (source, flatten_message) if isinstance(source, str) else source
                msg = self.sim.read(topic)
                if msg is None:
                    raise RuntimeError(f"no message on {topic} yet")
                value = fn(msg)
            obs[name] = np.asarray(value)
        return obs

    def _engine_reset(self, seed: int | None) -> None:
        # A new episode: with the seed given, else one drawn from the env's generator (so
        # episodes differ, and a seeded first reset fixes them all).
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        self.sim.reset(seed=seed)
        self._steps = 0
        self._warm_up()

    def _act(self, action: Any) -> None:
        if self.action_topic is not None:
            self.sim.publish(self.action_topic, self.action_to_msg(action))
        elif action is not None and self.action_to_msg is not twist_action:
            self.action_to_msg(action, self.sim)

    def _outcome(self) -> tuple[dict, float, bool, bool, dict]:
        self._steps += 1
        obs = self._observe()
        reward = float(self.reward_fn(obs, self.sim)) if self.reward_fn else 0.0
        terminated = bool(self.terminated_fn(obs, self.sim)) if self.terminated_fn else False
        truncated = self.max_steps is not None and self._steps >= self.max_steps
        return obs, reward, terminated, bool(truncated), {"time": self.sim.time}

    # gymnasium.Env

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._engine_reset(seed)
        return self._observe(), {"time": self.sim.time}

    def step(self, action: Any):
        self._act(action)
        self.sim.step(self.steps_per_action)
        return self._outcome()

    def close(self) -> None:
        self.sim.close()


class SimcoreVectorEnv(VectorEnv):
    """``num_envs`` independent copies of a world, stepped together on ``threads`` threads.

    Takes ``SimcoreEnv``'s arguments (each copy gets its own ``Simulation``; ``seed`` is the
    first copy's run seed, the others ``seed + i``). Copies that end are reset on the next
    ``step`` (gymnasium's next-step autoreset). Each copy steps as it would alone, so the
    observations do not depend on ``threads``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, world: Any, num_envs: int, *, threads: int = 1, seed: int = 0, **kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        self.envs = [SimcoreEnv(world, seed=seed + i, **kwargs) for i in range(num_envs)]
        first = self.envs[0]
        self.num_envs = num_envs
        self.threads = threads
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        for env in self.envs[1:]:
            env.observation_space = first.observation_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._obs = create_empty_array(self.single_observation_space, num_envs)

    def _batch(self, items: Sequence[dict]) -> dict:
        return concatenate(self.single_observation_space, items, self._obs)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        if isinstance(seed, int):
            super().reset(seed=seed)
            seeds: Sequence[int | None] = [seed + i for i in range(self.num_envs)]
        elif seed is None:
            seeds = [None] * self.num_envs
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        obs = []
        for env, s in zip(self.envs, seeds):
            o, _ = env.reset(seed=s)
            obs.append(o)
        self._autoreset[:] = False
        return self._batch(obs), {}

    def step(self, actions: Any):
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        stepping = []
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                env._engine_reset(None)
            else:
                env._act(actions[i])
                stepping.append(env)
        by_steps: dict[int, list[SimcoreEnv]] = {}
        for env in stepping:
            by_steps.setdefault(env.steps_per_action, []).append(env)
        for n, envs in by_steps.items():
            step_all([e.sim for e in envs], n, self.threads)
        obs = []
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                obs.append(env._observe())
                continue
            o, r, te, tr, _ = env._outcome()
            obs.append(o)
            rewards[i], terminated[i], truncated[i] = r, te, tr
        self._autoreset = terminated | truncated
        return self._batch(obs), rewards, terminated, truncated, {}

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
