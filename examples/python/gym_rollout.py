"""Rollouts of a gymnasium environment made from simcore's `worlds/diff_drive.sdf`: the robot
is rewarded for driving forward, observed through its odometry. Four copies of the world step
together on two threads (SimcoreVectorEnv); a random policy drives them. Needs gymnasium
(pip install "simcore[gym]"); from the repository's root:

    SIMCORE_PLUGIN_PATH=target/debug python3 examples/python/gym_rollout.py
"""

import numpy as np

from simcore.gym import SimcoreVectorEnv


def forward_progress(obs, sim):
    """The robot's speed along its x axis (the odometry's twist, a reward per action)."""
    return float(obs["odometry"][7])  # position (3), orientation (4), then linear x


envs = SimcoreVectorEnv(
    "worlds/diff_drive.sdf",
    num_envs=4,
    threads=2,
    observations={"odometry": "/model/robot/odometry"},
    action_topic="/model/robot/cmd_vel",  # [linear x, angular z] as a Twist
    reward_fn=forward_progress,
    steps_per_action=50,  # 0.05 s of sim time per action
    max_steps=100,
)
obs, _ = envs.reset(seed=7)
rng = np.random.default_rng(7)
returns = np.zeros(envs.num_envs)
for _ in range(100):
    actions = rng.uniform(-1, 1, size=(envs.num_envs, 2)).astype(np.float32)
    actions[:, 0] = np.abs(actions[:, 0])  # mostly forward
    obs, rewards, terminated, truncated, _ = envs.step(actions)
    returns += rewards
print("returns per world:", np.round(returns, 2))
print("final positions:", np.round(obs["odometry"][:, :2], 2).tolist())
envs.close()
