"""simcore.gym: the gymnasium environment and the vector environment."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import simcore  # noqa: E402
from simcore.gym import SimcoreEnv, SimcoreVectorEnv, flatten_message  # noqa: E402
from conftest import IMU_TOPIC, SMALL_SENSORS  # noqa: E402

ODOMETRY = "/model/robot/odometry"
CMD_VEL = "/model/robot/cmd_vel"


def forward(obs, sim):
    return float(obs["odometry"][7])


def drive_env(world, plugins, **kwargs):
    return SimcoreEnv(
        world("diff_drive.sdf"),
        plugin_path=plugins,
        observations={"odometry": ODOMETRY},
        action_topic=CMD_VEL,
        reward_fn=forward,
        steps_per_action=20,
        **kwargs,
    )


def test_the_env_passes_gymnasiums_checker(world, plugins):
    env = drive_env(world, plugins, max_steps=20)
    space = env.observation_space["odometry"]
    assert space.shape == (13,) and space.dtype == np.float64
    check_env(env, skip_render_check=True)
    env.close()


def test_an_episode_drives_and_truncates(world, plugins):
    env = drive_env(world, plugins, max_steps=25, terminated_fn=lambda obs, sim: obs["odometry"][0] > 0.3)
    obs, info = env.reset(seed=1)
    assert obs["odometry"][0] == pytest.approx(0, abs=1e-3) and info["time"] > 0
    done, steps, total = False, 0, 0.0
    while not done:
        obs, reward, terminated, truncated, _ = env.step(np.array([1.0, 0.0], dtype=np.float32))
        total += reward
        steps += 1
        done = terminated or truncated
    assert terminated and not truncated and obs["odometry"][0] > 0.3 and total > 0
    env.reset()
    for _ in range(25):
        *_, terminated, truncated, _ = env.step(np.zeros(2, dtype=np.float32))
    assert truncated and not terminated
    env.close()


def test_reset_with_a_seed_gives_that_seeds_run(world, plugins):
    env = SimcoreEnv(world("imu_drop.sdf"), plugin_path=plugins, observations={"imu": IMU_TOPIC}, steps_per_action=10)
    assert env.observation_space["imu"].shape == flatten_message(_first_imu(world, plugins)).shape

    def run(seed):
        obs, _ = env.reset(seed=seed)
        out = [obs["imu"].copy()]
        for _ in range(5):
            out.append(env.step(None)[0]["imu"].copy())
        return np.stack(out)

    five, other, five_again = run(5), run(6), run(5)
    assert np.array_equal(five, five_again) and not np.array_equal(five, other)
    # The reset steps until every observed topic has published: the IMU does at the first step.
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=5) as sim:
        sim.step(1)
        assert np.array_equal(flatten_message(sim.read(IMU_TOPIC)), five[0])
    env.close()


def _first_imu(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        sim.step(1)
        return sim.read(IMU_TOPIC)


def test_image_observations_are_boxes_of_their_dtype(world, plugins):
    env = SimcoreEnv(
        world("sensors_demo.sdf"),
        plugin_path=plugins,
        overrides=SMALL_SENSORS,
        observations={
            "camera": "/world/sensors_demo/model/mast/link/head/sensor/camera/image",
            "scan": ("/world/sensors_demo/model/mast/link/head/sensor/lidar/scan", lambda m: m.array.min(axis=0)),
        },
        steps_per_action=10,
    )
    camera, scan = env.observation_space["camera"], env.observation_space["scan"]
    assert camera.shape == (48, 64, 3) and camera.dtype == np.uint8
    assert scan.shape == (90,) and scan.dtype == np.float64
    obs, _ = env.reset(seed=0)
    assert obs["camera"].flags.owndata is False
    assert env.observation_space.contains(obs)
    env.close()


def rollout(world, plugins, threads):
    envs = SimcoreVectorEnv(
        world("diff_drive.sdf"),
        num_envs=4,
        threads=threads,
        plugin_path=plugins,
        observations={"odometry": ODOMETRY},
        action_topic=CMD_VEL,
        reward_fn=forward,
        steps_per_action=20,
        max_steps=6,
    )
    rng = np.random.default_rng(3)
    obs, _ = envs.reset(seed=11)
    frames = [obs["odometry"].copy()]
    ends = []
    for _ in range(10):
        actions = rng.uniform(-1, 1, size=(4, 2)).astype(np.float32)
        obs, rewards, terminated, truncated, _ = envs.step(actions)
        frames.append(obs["odometry"].copy())
        frames.append(rewards.copy())
        ends.append(truncated.copy())
    envs.close()
    return frames, ends


def test_the_vector_env_is_the_same_at_any_thread_count(world, plugins):
    one, ends = rollout(world, plugins, 1)
    for threads in (2, 4):
        other, _ = rollout(world, plugins, threads)
        assert len(one) == len(other)
        for a, b in zip(one, other):
            assert a.tobytes() == b.tobytes()
    # Episodes of 6 actions truncate, and the next step resets (next-step autoreset).
    assert ends[5].all() and not ends[6].any()
    # The copies run different seeds and actions: they differ.
    assert not np.array_equal(one[-2][0], one[-2][1])


def test_the_vector_env_spaces(world, plugins):
    envs = SimcoreVectorEnv(
        world("diff_drive.sdf"),
        num_envs=3,
        plugin_path=plugins,
        observations={"odometry": ODOMETRY},
        action_topic=CMD_VEL,
    )
    assert envs.observation_space["odometry"].shape == (3, 13)
    assert envs.action_space.shape == (3, 2)
    obs, _ = envs.reset(seed=[1, 2, 3])
    assert obs in envs.observation_space
    envs.close()
