package marks
