"""Skyjo for reinforcement learning: rules engine, PettingZoo and Gymnasium envs."""
